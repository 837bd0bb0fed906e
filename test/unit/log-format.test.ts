import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { loadSettings, SettingsError } from '../../src/platform/env.ts'

const run = promisify(execFile)

/** Logs one line through the service's destination for LOG_FORMAT in a child process (stdout is a pipe there, not a terminal). */
async function logged(logFormat: string): Promise<string> {
  const script = `
    import pino from 'pino'
    import { logDestination } from './src/platform/log-destination.ts'
    const log = pino({ level: 'info' }, logDestination({ logFormat: ${JSON.stringify(logFormat)} }))
    log.info({ route: '/v1/account' }, 'hello from the log format test')
    if (log[pino.symbols.streamSym].end) log[pino.symbols.streamSym].end()
  `
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), timeout: 60_000 })
  return stdout
}

test('LOG_FORMAT: json and auto (not a terminal) write JSON lines; pretty writes pino-pretty lines', async () => {
  for (const format of ['json', 'auto']) {
    const line = JSON.parse((await logged(format)).trim())
    assert.equal(line.msg, 'hello from the log format test')
    assert.equal(line.route, '/v1/account')
  }
  const pretty = await logged('pretty')
  assert.match(pretty, /INFO.*hello from the log format test/)
  assert.match(pretty, /route: "\/v1\/account"/)
  assert.throws(() => JSON.parse(pretty))
})

test('LOG_FORMAT is validated at start-up', () => {
  assert.equal(loadSettings({}).logFormat, 'auto')
  assert.equal(loadSettings({ LOG_FORMAT: 'pretty' }).logFormat, 'pretty')
  assert.throws(() => loadSettings({ LOG_FORMAT: 'xml' }), (err) => err instanceof SettingsError && /LOG_FORMAT/.test(err.message))
})
