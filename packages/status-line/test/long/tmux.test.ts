/**
 * tmux as the README documents it (issue 51): its ```tmux block, read from the README itself (the
 * example URL replaced by the test service's) and loaded as the config file of a server of its own
 * (its own socket). The server is started from an environment without THINKING_LINE_URL, so the URL
 * reaches `#()` only through the block's `set-environment -g`; the state directory and the country
 * reach it the other documented way, exported before the server starts. A client attached in a
 * pseudo-terminal (`script`): the status line it really draws carries a whole ad longer than tmux's
 * default 40 columns, and `tmux run-shell 'thinking-line --check'` shows what the status line sees.
 */
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { campaignBody, useService } from '../../../../test/helpers/api.ts'
import { privateCountry } from '../../../../test/helpers/serving.ts'
import { BIN, stateDirFor, waitFor } from './client.ts'

const h = useService({ CLOCK: 'system' }, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
const socket = `thinking-line-${process.pid}`
after(() => {
  spawnSync('tmux', ['-L', socket, 'kill-server'])
})

const EXAMPLE_URL = 'https://ads.example.com'
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const clients = readFileSync(new URL('../../../../docs/clients.md', import.meta.url), 'utf8')

/** The README's ```tmux block. */
function documentedConfig(): string {
  const blocks = [...readme.matchAll(/```tmux\n([\s\S]*?)```/g)].map((m) => m[1]!)
  assert.equal(blocks.length, 1, 'the README has one tmux block')
  return blocks[0]!
}

test('the README\'s tmux block: status-right-length, the URL through set-environment -g, the line drawn whole, --check through run-shell', async () => {
  const config = documentedConfig()
  assert.match(config, /^set -g status-right-length (\d+)$/m)
  assert.ok(config.includes(`set-environment -g THINKING_LINE_URL ${EXAMPLE_URL}\n`), config)
  assert.ok(clients.includes(`\`\`\`tmux\n${config}\`\`\``), 'docs/clients.md shows the same block')

  const adv = await h.advertiser()
  const country = privateCountry()
  // 60 characters with a # in them: 83 columns as drawn, twice what tmux shows by default.
  const adLine = 'Acme CI #1 for tmux: fast builds on every push, no wait, 2x!'
  assert.equal(adLine.length, 60)
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], target_surface: 'terminal', impressions: 1000, ad_line: adLine, brand: 'Acme Build Cloud' }))
  assert.equal(res.status, 201, res.text)

  // `thinking-line` on the PATH, as `npm install -g thinking-line` puts it.
  const bin = mkdtempSync(join(tmpdir(), 'thinking-line-bin-'))
  writeFileSync(join(bin, 'thinking-line'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`)
  chmodSync(join(bin, 'thinking-line'), 0o755)
  const conf = join(mkdtempSync(join(tmpdir(), 'thinking-line-tmux-conf-')), 'tmux.conf')
  writeFileSync(conf, config.replaceAll(EXAMPLE_URL, h.baseUrl))

  // The shell that starts the server: no THINKING_LINE_URL (nor any other THINKING_LINE_* of the test's own environment).
  const shell: NodeJS.ProcessEnv = { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}`, TERM: 'xterm' }
  for (const name of Object.keys(shell)) if (name.startsWith('THINKING_LINE_')) delete shell[name]
  const stateDir = stateDirFor()
  const server = { ...shell, THINKING_LINE_STATE_DIR: stateDir, THINKING_LINE_COUNTRY: country }
  const tmux = (env: NodeJS.ProcessEnv, ...args: string[]) => {
    const r = spawnSync('tmux', ['-L', socket, ...args], { env, encoding: 'utf8' })
    assert.equal(r.status, 0, `tmux ${args.join(' ')}: ${r.stderr}`)
    return r.stdout
  }
  tmux(server, '-f', conf, 'new-session', '-d', '-x', '160', '-y', '30')
  assert.equal(tmux(shell, 'show-environment', '-g', 'THINKING_LINE_URL'), `THINKING_LINE_URL=${h.baseUrl}\n`)

  // A client attached in a pseudo-terminal, from the shell without the settings: what tmux draws is what a user sees.
  const screen = join(mkdtempSync(join(tmpdir(), 'thinking-line-tmux-')), 'screen')
  const client = spawn('script', ['-qfec', `stty cols 160 rows 30; tmux -L ${socket} attach`, screen], { env: shell, stdio: ['pipe', 'ignore', 'ignore'] })
  try {
    const drawn = () => (existsSync(screen) ? readFileSync(screen, 'utf8') : '')
    // The first #() run starts the refresher; the line shows the ad from the next run on.
    const whole = `Ad · Acme Build Cloud · ${adLine}`
    assert.ok(await waitFor(() => drawn().includes(whole), 15_000, 250), `the status line: ${JSON.stringify(drawn().slice(-600))}`)
    assert.ok(!drawn().includes('\u001b]8;;'), 'no OSC 8 link inside tmux')

    // What the status line sees, shown in the pane by run-shell: the URL from set-environment -g, the service answering
    // (exit 0). run-shell waits for the command, which asks the service in this process: not spawnSync.
    const checked = await new Promise<number | null>((resolve) => spawn('tmux', ['-L', socket, 'run-shell', 'thinking-line --check'], { env: shell, stdio: 'ignore' }).on('close', resolve))
    assert.equal(checked, 0, 'thinking-line --check in tmux exits 0')
    assert.ok(await waitFor(() => drawn().includes(`${h.baseUrl} (THINKING_LINE_URL)`) && /answered in \d+ ms/.test(drawn()), 10_000, 250), `run-shell --check: ${JSON.stringify(drawn().slice(-1500))}`)
    // Runs of spaces may be drawn as cursor moves or repeats: compare without control sequences.
    // eslint-disable-next-line no-control-regex
    const text = drawn().replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
    assert.match(text, /max columns\s*100/)
    assert.match(text, new RegExp(`country\\s*${country}`))
  } finally {
    tmux(shell, 'detach-client', '-a')
    client.stdin?.end()
    client.kill()
  }
})
