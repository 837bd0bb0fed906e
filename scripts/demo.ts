/**
 * `npm run demo`: the terminal surface end to end on one machine. Starts the service on the
 * embedded store (in memory, system clock) with an approved demo advertiser and three terminal
 * campaigns (scripts/demo-service.ts), and prints the one command that shows the rotating ads in
 * this terminal, and where the portal shows their delivery live. Ctrl-C stops it (nothing is kept).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TERMINAL_CAMPAIGNS, startDemoService } from './demo-service.ts'

const root = new URL('..', import.meta.url).pathname

const demo = await startDemoService('terminal', TERMINAL_CAMPAIGNS)
const { base, email, userId, adminToken } = demo

const stateDir = mkdtempSync(join(tmpdir(), 'thinking-line-demo-'))
const bin = join(root, 'packages/status-line/bin/thinking-line.js')
// A development attester's JWT for a demo user (valid an hour): the refresher trades it for tokens.
const jwt: string | undefined = demo.devAttester ? (await demo.call('POST', '/dev/attest', {}, { subject: 'demo-user' })).jwt : undefined
const attest = jwt ? `THINKING_LINE_ATTEST_TOKEN=${jwt} ` : ''
const command = `while sleep 1; do printf '\\r\\033[K%s' "$(${attest}THINKING_LINE_URL=${base} THINKING_LINE_STATE_DIR=${stateDir} node ${bin} --prefix 'demo')"; done`
console.log(`
The service: ${base} (embedded store in memory, system clock; Ctrl-C stops it and keeps nothing)
Demo advertiser ${email} (${userId}) with three terminal campaigns.

Rotating ads in a terminal (each ad stays 10 s, then its view is reported, with a Privacy Pass token
from the development attester once the refresher has fetched some, and the next one shows):

  ${command}

Their delivery, live, in the portal: ${base}/portal/campaigns
  (set the demo advertiser's password first: ${demo.passwordLink ?? `${base}/portal/forgot-password`})
Operator console: ${base}/ops/setup with the token ${adminToken}
`)

const stop = async () => {
  await demo.close()
  process.exit(0)
}
process.once('SIGINT', () => void stop())
process.once('SIGTERM', () => void stop())
