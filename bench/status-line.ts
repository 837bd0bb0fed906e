/**
 * The status-line client's start-up cost (issue 37): wall time per invocation of the real bin
 * (`node packages/status-line/bin/thinking-line.js`, stdin JSON piped, one line read back) next to
 * a bare `node -e ''` started the same way, alternating in one run, so both see the same machine.
 * The client runs as Claude Code runs it (every --every ms) against a stand-in serving endpoint
 * (decisions answered 200, views 204): its state moves on, ads rotate every 10 s, views are
 * queued and detached refreshers start, all inside the measured invocations. The stdin JSON's
 * working directory is a small fixture project (package.json, Dockerfile), so refreshers derive
 * and send topics (issue 40) as they do for a real user.
 *
 *   npm run bench:status-line                     # 200 runs of each
 *   npm run bench:status-line -- --runs 500 --every 300
 *   npm run bench:status-line -- --no-prefix      # no prefix: stdin is read only by runs that start a refresher
 *   npm run bench:status-line -- --topics off     # THINKING_LINE_TOPICS=off
 *
 * Prints the median and p95 of both and the differences; the target is p95 within 50 ms of bare node.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ascending, median, nearestRank } from '../tools/lib/stats.ts'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200' }, every: { type: 'string', default: '300' }, 'no-prefix': { type: 'boolean', default: false }, topics: { type: 'string', default: 'on' } } })
const runs = Number(values.runs)
const everyMs = Number(values.every)
const BIN = new URL('../packages/status-line/bin/thinking-line.js', import.meta.url).pathname
const project = mkdtempSync(join(tmpdir(), 'thinking-line-bench-project-'))
writeFileSync(join(project, 'package.json'), JSON.stringify({ dependencies: { react: '18.3.1', 'react-dom': '18.3.1' }, devDependencies: { typescript: '5.6.2', vite: '5.4.0', vitest: '2.1.0' } }))
writeFileSync(join(project, 'Dockerfile'), 'FROM node:20\n')
const STDIN = JSON.stringify({ model: { display_name: 'Opus' }, workspace: { current_dir: project }, session_id: 'x'.repeat(36) })

let served = 0
let withTopics = 0
let views = 0
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (c: Buffer) => (body += c.toString()))
  req.on('end', () => {
    if (req.url === '/serve/v1/decisions') {
      if (body.includes('"topics"')) withTopics++
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
const env = {
  PATH: process.env.PATH ?? '',
  THINKING_LINE_URL: url,
  THINKING_LINE_STATE_DIR: dir,
  THINKING_LINE_TOPICS: values.topics ?? 'on',
  ...(values['no-prefix'] ? {} : { THINKING_LINE_PREFIX: '{model.display_name} · {workspace.current_dir}' }),
}

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
rmSync(project, { recursive: true, force: true })

const f = (x: number) => `${x.toFixed(1)} ms`
const p95 = (xs: number[]) => nearestRank(ascending(xs), 0.95)
console.log(`${runs} runs of each, one every ${everyMs} ms, node ${process.version}, ${values['no-prefix'] ? 'no prefix' : 'prefix from stdin'}, topics ${env.THINKING_LINE_TOPICS}`)
console.log(`${withAd} lines with an ad, ${served} decisions (${withTopics} with topics), ${views} views`)
console.log(`bare node -e '':       median ${f(median(bare))}, p95 ${f(p95(bare))}`)
console.log(`thinking-line:         median ${f(median(client))}, p95 ${f(p95(client))}`)
console.log(`difference:            median ${f(median(client) - median(bare))}, p95 ${f(p95(client) - p95(bare))} (target: p95 within 50 ms)`)
process.exit(0)
