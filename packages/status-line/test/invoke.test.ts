import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'

const BIN = new URL('../bin/thinking-line.js', import.meta.url).pathname

/** The bin with `stdin` written (and closed unless `keepOpen`); its stdout, exit code and time. */
function run(env: Record<string, string>, args: string[], stdin: string, keepOpen = false): Promise<{ out: string; code: number | null; ms: number }> {
  const started = performance.now()
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', THINKING_LINE_URL: 'http://127.0.0.1:9', ...env }, stdio: ['pipe', 'pipe', 'ignore'] })
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.on('close', (code) => {
      child.stdin.destroy()
      resolve({ out, code, ms: performance.now() - started })
    })
    child.stdin.on('error', () => {})
    child.stdin.write(stdin)
    if (!keepOpen) child.stdin.end()
  })
}
const dir = () => mkdtempSync(join(tmpdir(), 'thinking-line-'))

test('the prefix template from stdin JSON; one line, exit 0', async () => {
  const r = await run({ THINKING_LINE_STATE_DIR: dir() }, ['--prefix', '{model.display_name} in {workspace.current_dir}'], '{"model":{"display_name":"Opus"},"workspace":{"current_dir":"/src/app"}}')
  assert.deepEqual(r, { ...r, out: 'Opus in /src/app\n', code: 0 })
})

test('stdin that never ends is not waited for', async () => {
  const r = await run({ THINKING_LINE_STATE_DIR: dir(), THINKING_LINE_PREFIX: '[{model.display_name}]' }, [], '{"model":', true)
  assert.equal(r.code, 0)
  assert.equal(r.out, '[]\n')
  assert.ok(r.ms < 3_000, `${Math.round(r.ms)} ms`)
})

test('invalid stdin and a state directory that cannot be made: the prefix alone, exit 0', async () => {
  const file = join(dir(), 'a-file')
  writeFileSync(file, '')
  const r = await run({ THINKING_LINE_STATE_DIR: join(file, 'state') }, ['--prefix=PR #7 {model.display_name}', '--tmux'], 'not json')
  assert.equal(r.code, 0)
  assert.equal(r.out, 'PR ##7 \n')
})

test('an invocation loads only its own modules and the client core\'s rules, decision and text: no third-party code, no manifest reader, no wallet', async () => {
  const log = join(dir(), 'loaded.txt')
  // A module hook (its own thread) that writes down every module the invocation loads.
  const hooks = `import { appendFileSync } from 'node:fs'\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context) }\n`
  const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)})`
  const out = await new Promise<string>((resolve) => {
    const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, BIN], {
      env: { PATH: process.env.PATH ?? '', THINKING_LINE_URL: 'http://127.0.0.1:9', THINKING_LINE_STATE_DIR: dir(), THINKING_LINE_TOPICS: 'off' },
      stdio: ['ignore', 'pipe', 'ignore'],
    })
    let text = ''
    child.stdout.on('data', (c: Buffer) => (text += c.toString()))
    child.on('close', () => resolve(text))
  })
  assert.equal(out, '\n')
  const ours = readFileSync(log, 'utf8')
    .split('\n')
    .filter((u) => u.startsWith('file:'))
    .map((u) => u.replace(/^.*\/packages\//, ''))
    .sort()
  // The refresher (started detached, a process of its own) is not loaded by the invocation.
  assert.deepEqual(ours, ['ad-client/src/decision.js', 'ad-client/src/rules.js', 'ad-client/src/text.js', 'status-line/bin/thinking-line.js', 'status-line/src/exposure.js', 'status-line/src/invoke.js', 'status-line/src/line.js', 'status-line/src/state.js', 'status-line/src/workspace.js'])
})
