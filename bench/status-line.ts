/**
 * The status-line client's start-up cost (issue 37): wall time per invocation of the real bin
 * (`node packages/status-line/bin/thinking-line.js`, stdin JSON piped, one line read back) next to
 * a bare `node -e ''` started the same way, alternating in one run, so both see the same machine.
 * The client runs as Claude Code runs it (every --every ms) against a stand-in serving endpoint
 * (decisions answered 200, views 204): its state moves on, ads rotate every 10 s, views are
 * queued and detached refreshers start, all inside the measured invocations.
 *
 *   npm run bench:status-line                     # 200 runs of each
 *   npm run bench:status-line -- --runs 500 --every 300
 *
 * Prints the median and p95 of both and the differences; the target is p95 within 50 ms of bare node.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ascending, median, nearestRank } from '../tools/lib/stats.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' }, every: { type: 'string', default: '300' } } })
const runs = Number(values.runs)
const everyMs = Number(values.every)
const BIN = new URL('../packages/status-line/bin/thinking-line.js', import.meta.url).pathname
const STDIN = JSON.stringify({ model: { display_name: 'Opus' }, workspace: { current_dir: '/home/dev/app' }, session_id: 'x'.repeat(36) })

let served = 0
let views = 0
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    if (req.url === '/serve/v1/decisions') {
      const id = `imp_bench_${served++}`
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ impression_id: id, ad_line: 'Ship faster with Acme CI', brand: 'Acme', icon_url: null, view_url: `/serve/v1/impressions/${id}/view`, click_url: `https://ads.example/serve/v1/impressions/${id}/click` }))
    } else {
      views++
      res.writeHead(204).end()
    }
  })
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const dir = mkdtempSync(join(tmpdir(), 'thinking-line-bench-'))
const env = { PATH: process.env.PATH ?? '', THINKING_LINE_URL: url, THINKING_LINE_STATE_DIR: dir, THINKING_LINE_PREFIX: '{model.display_name} · {workspace.current_dir}' }

/** Spawn to exit, stdin written and stdout read, in ms. */
function time(args: string[]): Promise<{ ms: number; out: string }> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - started, out }) : reject(new Error(`exit ${code}`))))
    child.stdin.on('error', () => {})
    child.stdin.end(STDIN)
  })
}

const bare: number[] = []
const client: number[] = []
let withAd = 0
// Warm-up (file cache, the first refresher), not measured.
for (let i = 0; i < 5; i++) await time([BIN])
for (let i = 0; i < runs; i++) {
  const start = performance.now()
  // Alternate which goes first, so neither always follows the other's child.
  const order = i % 2 ? ['bare', 'client'] : ['client', 'bare']
  for (const which of order) {
    if (which === 'bare') bare.push((await time(['-e', ''])).ms)
    else {
      const r = await time([BIN])
      client.push(r.ms)
      if (r.out.includes('Ad · Acme')) withAd++
    }
  }
  const wait = start + everyMs - performance.now()
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
}
server.close()
rmSync(dir, { recursive: true, force: true })

const f = (x: number) => `${x.toFixed(1)} ms`
const p95 = (xs: number[]) => nearestRank(ascending(xs), 0.95)
console.log(`${runs} runs of each, one every ${everyMs} ms, node ${process.version}, ${withAd} lines with an ad, ${served} decisions, ${views} views`)
console.log(`bare node -e '':       median ${f(median(bare))}, p95 ${f(p95(bare))}`)
console.log(`thinking-line:         median ${f(median(client))}, p95 ${f(p95(client))}`)
console.log(`difference:            median ${f(median(client) - median(bare))}, p95 ${f(p95(client) - p95(bare))} (target: p95 within 50 ms)`)
process.exit(0)
