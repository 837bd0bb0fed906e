/** The manifest, the presentation and the bundle: what VS Code and the .vsix get (no `vscode` needed). */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { present } from '../src/present.ts'

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const source = readFileSync(new URL('../src/extension.ts', import.meta.url), 'utf8')
const serving = readFileSync(new URL('../src/serving.ts', import.meta.url), 'utf8')

test('the manifest: activation on startup finished, every command registered, every setting described', async () => {
  assert.deepEqual(pkg.activationEvents, ['onStartupFinished'])
  assert.equal(pkg.displayName, 'Thinking Line')
  assert.ok(pkg.engines.vscode && pkg.main === './dist/extension.cjs' && pkg.icon && pkg.license && pkg.repository)
  const commands: string[] = pkg.contributes.commands.map((c: { command: string }) => c.command)
  assert.deepEqual(commands, ['thinkingLine.thinkingStarted', 'thinkingLine.thinkingStopped', 'thinkingLine.simulateThinking', 'thinkingLine.openAd'])
  for (const c of commands) assert.ok(source.includes(`registerCommand('${c}'`), c)
  assert.equal(pkg.contributes.commands[2].title, 'Thinking Line: Simulate an assistant thinking')
  const props = pkg.contributes.configuration.properties
  assert.deepEqual(Object.keys(props), ['thinkingLine.show', 'thinkingLine.serviceUrl', 'thinkingLine.country', 'thinkingLine.topics', 'thinkingLine.attestCommand'])
  for (const [k, v] of Object.entries<{ markdownDescription?: string }>(props)) assert.ok((v.markdownDescription ?? '').length > 20, k)
  const { vsixManifest } = await import('../build.mjs')
  assert.equal(vsixManifest().name, 'thinking-line', 'the .vsix carries the extension id')
})

test('the extension never reads the machine id, and sends no path: the decision body is built by the core from topics and the country only', () => {
  assert.ok(!/machineId/.test(source) && !/machineId/.test(serving))
  assert.match(serving, /decisionBody\(\{ surface: 'extension', viewerId: ports\.viewerId\(\), topics: ports\.topics\(\), country: countryCode\(country\) \}\)/)
})

test('present: disclosed and cut by the core; icons escaped; the tooltip says it is an ad and why', () => {
  const decision = { impression_id: 'i', ad_line: 'Deploy $(alert) now \u202Efast', brand: 'Acme', click_url: 'https://ads.example/c/i' }
  const p = present({ decision, topics: ['react', 'typescript'], fetchedAt: 0 })
  assert.equal(p.text, 'Ad · Acme · Deploy \\$(alert) now fast')
  assert.match(p.tooltip, /^Advertisement \(Thinking Line\): Ad · Acme · Deploy \$\(alert\) now fast\n/)
  assert.match(p.tooltip, /topics react, typescript/)
  assert.equal(p.clickUrl, 'https://ads.example/c/i')
  const long = present({ decision: { ...decision, brand: null, ad_line: 'x'.repeat(200) }, topics: [], fetchedAt: 0 })
  assert.equal(long.text.length, 60)
  assert.match(long.tooltip, /without topics/)
  assert.equal(present({ decision: { ...decision, click_url: 'javascript:alert(1)' }, topics: [], fetchedAt: 0 }).clickUrl, null)
})
