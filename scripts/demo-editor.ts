/**
 * `npm run demo:editor`: the editor surface end to end on one machine. Starts the service on the
 * embedded store with an approved demo advertiser and three `extension` campaigns
 * (scripts/demo-service.ts), builds the Thinking Line extension's .vsix when its sources changed,
 * and starts VS Code for the web (code-server, installed by .ci/code-server into a cache folder
 * outside the checkout: minutes the first time, at once afterwards) with the extension installed,
 * pointed at the service, and a demo project open (a package.json naming react, so the decisions
 * carry the topic `react`). Prints the address to open and the command to run. Ctrl-C stops both
 * (nothing is kept).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { builtVsix, codeServerInstall, startCodeServer } from '../test/helpers/code-server.ts'
import { pickPort, startDemoService, type DemoCampaign } from './demo-service.ts'

const EXTENSION_CAMPAIGNS: DemoCampaign[] = [
  { brand: 'Acme UI', ad_line: 'React components your designers already approved', destination_url: 'https://acme.example/ui', cpm_usd: 3, pace_minutes: 500, target_topics: ['react'] },
  { brand: 'Quill', ad_line: 'Review pull requests without leaving the editor', destination_url: 'https://quill.example/', cpm_usd: 2.5, pace_minutes: 500 },
  { brand: null, ad_line: 'Postgres backups you restore in one command', destination_url: 'https://backups.example/', cpm_usd: 2, pace_minutes: null },
]

console.log('Installing code-server when not cached yet (the first time takes minutes: its native modules build from source)…')
codeServerInstall()
console.log('Building the extension (.vsix) when its sources changed…')
const vsix = builtVsix()

const demo = await startDemoService('extension', EXTENSION_CAMPAIGNS)

// A small React project: the extension derives the topic `react` from its manifest, locally.
const folder = mkdtempSync(join(tmpdir(), 'thinking-line-demo-'))
const project = join(folder, 'demo-app')
mkdirSync(join(project, 'src'), { recursive: true })
writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'demo-app', private: true, dependencies: { react: '^19.0.0', 'react-dom': '^19.0.0' } }, null, 2) + '\n')
writeFileSync(join(project, 'src', 'App.jsx'), "export default function App() {\n  return <h1>Hello from the demo app</h1>\n}\n")

const editorPort = await pickPort(Number(process.env.EDITOR_PORT ?? 8081))
const editor = await startCodeServer({ folder: project, extensions: [vsix], port: editorPort, settings: { 'thinkingLine.serviceUrl': demo.base } }).catch(async (err: unknown) => {
  await demo.close()
  throw err
})

console.log(`
The service: ${demo.base} (embedded store in memory, system clock; Ctrl-C stops everything and keeps nothing)
Demo advertiser ${demo.email} (${demo.userId}) with three campaigns for the editor (one targets react).

VS Code for the web, with Thinking Line installed and a React project open:

  ${editor.url}

Open it in a browser, then run from the command palette (F1):

  Thinking Line: Simulate an assistant thinking

The status bar shows "Ad · {brand} · {ad line}" while the simulated assistant works; after 10 s
with the window focused the view is reported and billed. Click the item to open the ad.

Their delivery, live, in the portal: ${demo.base}/portal/campaigns
  (set the demo advertiser's password first: ${demo.passwordLink ?? `${demo.base}/portal/forgot-password`})
Operator console: ${demo.base}/ops/setup with the token ${demo.adminToken}
`)

const stop = async () => {
  await editor.close()
  await demo.close()
  rmSync(folder, { recursive: true, force: true })
  process.exit(0)
}
process.once('SIGINT', () => void stop())
process.once('SIGTERM', () => void stop())
