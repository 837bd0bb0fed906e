/* global require, exports, fetch, AbortSignal */
/* eslint-disable @typescript-eslint/no-require-imports -- an extension's entry point is CommonJS */
// The editor tests' stand-in for an AI assistant (packages/vscode-extension/test/long/editor.test.ts):
// it works for THINKING_LINE_TEST_THINK_MS through Thinking Line's exported API (`thinking(label)`, whose
// returned function ends it), hands over its user's attester (`setAttester`: a fresh JWT per call from
// the service's development attester at THINKING_LINE_TEST_ATTEST_URL), and writes what the API
// exposes to THINKING_LINE_TEST_OUT.
const vscode = require('vscode')
const { appendFileSync } = require('node:fs')

const record = (event) => appendFileSync(process.env.THINKING_LINE_TEST_OUT, JSON.stringify(event) + '\n')

async function thinkingLine() {
  // Found by what it contributes, not by its id.
  const extension = vscode.extensions.all.find((e) => (e.packageJSON.contributes?.commands ?? []).some((c) => c.command === 'thinkingLine.thinkingStarted'))
  if (!extension) throw new Error('Thinking Line is not installed')
  return { id: extension.id, api: await extension.activate() }
}

exports.activate = (context) => {
  context.subscriptions.push(
    vscode.commands.registerCommand('thinkingLineTestAssistant.think', async () => {
      const { api } = await thinkingLine()
      const end = api.thinking('Test assistant')
      record({ event: 'thinking' })
      setTimeout(() => {
        end()
        record({ event: 'done' })
      }, Number(process.env.THINKING_LINE_TEST_THINK_MS ?? 14000))
    }),
    vscode.commands.registerCommand('thinkingLineTestAssistant.attest', async () => {
      const { api } = await thinkingLine()
      api.setAttester(async () => {
        const res = await fetch(process.env.THINKING_LINE_TEST_ATTEST_URL, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ subject: 'editor-user-1' }),
          signal: AbortSignal.timeout(5000),
        })
        if (res.status !== 200) throw new Error(`the attester answered ${res.status}`)
        record({ event: 'jwt' })
        return (await res.json()).jwt
      })
      record({ event: 'attester' })
    }),
    vscode.commands.registerCommand('thinkingLineTestAssistant.report', async () => {
      const { id, api } = await thinkingLine()
      record({ event: 'report', id, exports: Object.keys(api).sort(), activationMs: api.activationMs, loadMs: typeof api.diagnostics === 'function' ? api.diagnostics().loadMs : null, focused: vscode.window.state.focused })
    }),
  )
}
