/**
 * tmux as documented: `status-interval 1` and `status-right '#(thinking-line --tmux)'` on a server
 * of its own (its own socket, no config file), a client attached in a pseudo-terminal (`script`),
 * and the status line it really draws carries the ad.
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

test("tmux's status line shows the ad, with tmux's # escaped and no hyperlink", async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], target_surface: 'terminal', impressions: 1000, ad_line: 'Acme CI #1 for tmux', brand: 'Acme' }))
  assert.equal(res.status, 201, res.text)

  // `thinking-line` on the PATH, as `npm install -g thinking-line` puts it.
  const bin = mkdtempSync(join(tmpdir(), 'thinking-line-bin-'))
  writeFileSync(join(bin, 'thinking-line'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`)
  chmodSync(join(bin, 'thinking-line'), 0o755)
  const env = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    TERM: 'xterm',
    THINKING_LINE_URL: h.baseUrl,
    THINKING_LINE_STATE_DIR: stateDirFor(),
    THINKING_LINE_COUNTRY: country,
  }
  const tmux = (...args: string[]) => {
    const r = spawnSync('tmux', ['-L', socket, ...args], { env, encoding: 'utf8' })
    assert.equal(r.status, 0, `tmux ${args.join(' ')}: ${r.stderr}`)
    return r.stdout
  }
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '160', '-y', '10')
  tmux('set', '-g', 'status-interval', '1')
  tmux('set', '-g', 'status-right-length', '120')
  tmux('set', '-g', 'status-right', '#(thinking-line --tmux)')

  // A client attached in a pseudo-terminal: what tmux draws is what a user sees.
  const screen = join(mkdtempSync(join(tmpdir(), 'thinking-line-tmux-')), 'screen')
  const client = spawn('script', ['-qfec', `stty cols 160 rows 10; tmux -L ${socket} attach`, screen], { env, stdio: ['pipe', 'ignore', 'ignore'] })
  try {
    const drawn = () => (existsSync(screen) ? readFileSync(screen, 'utf8') : '')
    // The first #() run starts the refresher; the line shows the ad from the next run on.
    assert.ok(await waitFor(() => drawn().includes('Ad · Acme · Acme CI #1 for tmux'), 15_000, 250), `the status line: ${JSON.stringify(drawn().slice(-400))}`)
    assert.ok(!drawn().includes('\u001b]8;;'), 'no OSC 8 link inside tmux')
  } finally {
    tmux('detach-client', '-a')
    client.stdin?.end()
    client.kill()
  }
})
