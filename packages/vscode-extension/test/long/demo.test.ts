/**
 * `npm run demo:editor` (scripts/demo-editor.ts) starts, prints the workbench's address and the command to run, serves the
 * workbench with the extension installed and the service with campaigns for the editor, and stops
 * on Ctrl-C (SIGINT) leaving nothing running.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import { browserSkip } from '../../../../test/helpers/browser.ts'
import { builtVsix, freePort } from '../../../../test/helpers/code-server.ts'

const root = new URL('../../../../', import.meta.url).pathname

test('npm run demo:editor prints the address and the command, serves both, and stops on Ctrl-C', { skip: browserSkip, timeout: 300_000 }, async () => {
  const [servicePort, editorPort] = [await freePort(), await freePort()]
  const vsix = builtVsix()
  // What `npm run demo:editor` runs (tsx on scripts/demo-editor.ts), without npm in between, so Ctrl-C reaches the demo alone.
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo-editor.ts'], {
    cwd: root,
    env: { ...process.env, PORT: String(servicePort), EDITOR_PORT: String(editorPort), THINKING_LINE_VSIX: vsix, ADMIN_TOKEN: 'demo-editor-test-token-0123456789' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => void (out += c.toString()))
  child.stderr.on('data', (c: Buffer) => void (out += c.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  try {
    const started = performance.now()
    while (!out.includes('Operator console:') && child.exitCode === null && performance.now() - started < 240_000) await new Promise((r) => setTimeout(r, 250))
    console.log(`# demo:editor ready in ${Math.round(performance.now() - started)} ms`)
    assert.match(out, new RegExp(`http://127\\.0\\.0\\.1:${editorPort}/\\?folder=\\S+demo-app`), out)
    assert.match(out, /Thinking Line: Simulate an assistant thinking/)
    assert.match(out, new RegExp(`The service: http://127\\.0\\.0\\.1:${servicePort}`))

    const workbench = await fetch(`http://127.0.0.1:${editorPort}/`)
    assert.equal(workbench.status, 200)
    assert.match(await workbench.text(), /workbench/i)
    // The service has an `extension` campaign for a React project.
    const decision = await fetch(`http://127.0.0.1:${servicePort}/serve/v1/decisions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ surface: 'extension', viewer_id: 'demo-editor-test', topics: ['react'] }),
    })
    assert.equal(decision.status, 200)
    assert.match(((await decision.json()) as { ad_line: string }).ad_line, /\S/)
  } finally {
    if (child.exitCode === null) child.kill('SIGINT')
  }
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 20_000))])
  if (code === 'hung') child.kill('SIGKILL')
  assert.equal(code, 0, `demo:editor exit: ${code}\n${out}`)
  // Both ports are free again.
  for (const port of [servicePort, editorPort]) await assert.rejects(fetch(`http://127.0.0.1:${port}/`), `port ${port} still answers`)
})
