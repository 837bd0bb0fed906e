import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
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
