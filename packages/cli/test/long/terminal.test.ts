/**
 * adctl on a real terminal (a pty from util-linux's `script`, as in the status-line tmux test):
 * login asks for what the flags do not give, with the key hidden; create asks before it buys.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { stripVTControlCharacters } from 'node:util'
import { useService } from '../../../../test/helpers/api.ts'
import { privateCountry } from '../../../../test/helpers/serving.ts'
import { BIN, freshConfigHome } from '../run.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null, country_targeting_enabled: true })

/** Runs adctl in a pty, typing each answer once the screen shows its prompt; returns what the terminal showed. */
async function onTerminal(args: string[], env: Record<string, string>, answers: [RegExp, string][]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', TERM: 'xterm', ...env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let screen = ''
  const pending = [...answers]
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    screen += s
    const next = pending[0]
    if (next && next[0].test(stripVTControlCharacters(screen))) {
      pending.shift()
      child.stdin.write(`${next[1]}\r`)
    }
  })
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  return { code, screen: stripVTControlCharacters(screen) }
}

test('login asks for the user id and the key (never echoed), checks them and stores them', async () => {
  const adv = await h.advertiser()
  const home = freshConfigHome()
  const run = await onTerminal(['login'], { ADCTL_API_URL: h.baseUrl, XDG_CONFIG_HOME: home }, [
    [/User id/, adv.userId],
    [/API key/, adv.apiKey],
  ])
  assert.equal(run.code, 0, run.screen)
  assert.match(run.screen, /Logged in as usr_/)
  assert.ok(!run.screen.includes(adv.apiKey), 'the key is masked on screen')
  assert.deepEqual(JSON.parse(readFileSync(join(home, 'adctl', 'credentials.json'), 'utf8')), { profiles: { default: { api_url: h.baseUrl, user_id: adv.userId, api_key: adv.apiKey } } })
})

test('create shows the quote and asks: no buys nothing, yes buys', async () => {
  const adv = await h.advertiser()
  const env = { ADCTL_API_URL: h.baseUrl, ADCTL_USER_ID: adv.userId, ADCTL_API_KEY: adv.apiKey, XDG_CONFIG_HOME: freshConfigHome() }
  const order = ['campaigns', 'create', '--line', 'Ship faster with Acme CI', '--destination', 'https://acme.dev', '--cpm', '2.5', '--impressions', '1000', '--countries', privateCountry()]
  const declined = await onTerminal(order, env, [[/Buy 1,000 impressions at \$2\.50 CPM \(at most \$2\.50, billed on delivery\)\?/, 'n']])
  assert.equal(declined.code, 0, declined.screen)
  assert.match(declined.screen, /Rank\s+1 \(next to serve\)/)
  assert.match(declined.screen, /Nothing bought/)
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 0)

  const accepted = await onTerminal(order, env, [[/Buy 1,000 impressions/, 'y']])
  assert.equal(accepted.code, 0, accepted.screen)
  assert.match(accepted.screen, /Bought: cmp_/)
  assert.equal((await adv.get('/v1/campaigns')).body.campaigns.length, 1)
  assert.ok(existsSync(BIN))
})
