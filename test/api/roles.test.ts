import { randomUUID } from 'node:crypto'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { DestinationStream } from 'pino'
import { SystemClock, type Clock } from '../../src/platform/clock.ts'
import { loadSettings } from '../../src/platform/env.ts'
import { startInstance } from '../../src/start/roles.ts'
import type { Instance } from '../../src/start/instance.ts'
import { campaignBody } from '../helpers/api.ts'
import { ADMIN_TOKEN, createDatabase, STORE } from '../helpers/service.ts'
import { WebhookReceiver } from '../helpers/webhook-receiver.ts'

/**
 * Issue 20: ROLE=web serves and runs no job; ROLE=worker runs every job
 * occurrence, once, for every instance on the store. Two web instances and
 * one worker run in-process through `startInstance` (what `npm start` calls)
 * on one PostgreSQL and one ticking clock that the test moves forward.
 */

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
const real = new SystemClock()

/** System time shifted to the test's calendar: it ticks like the system clock (so the worker's timer runs jobs), and `jump` moves it forward. */
class ShiftedClock implements Clock {
  readonly kind = 'system' as const
  #offset: number
  constructor(start: string) {
    this.#offset = new Date(start).getTime() - real.nowMs()
  }
  nowMs(): number {
    return real.nowMs() + this.#offset
  }
  now(): Date {
    return new Date(this.nowMs())
  }
  jumpTo(instant: string): void {
    const ms = new Date(instant).getTime()
    assert.ok(ms > this.nowMs(), 'jumps go forward')
    this.#offset = ms - real.nowMs()
  }
}

/** Each instance's log lines, parsed. */
function logSink(): { stream: DestinationStream; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = []
  return { lines, stream: { write: (line: string) => void lines.push(JSON.parse(line)) } }
}

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + path, {
    method,
    headers: { 'x-forwarded-for': '203.0.113.20', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text, text }
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 10_000, everyMs = 50): Promise<T> {
  const deadline = real.nowMs() + ms
  for (;;) {
    const value = await probe()
    if (value) return value
    if (real.nowMs() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

const ran = (lines: Record<string, any>[], job?: string) => lines.filter((l) => l.msg === 'job ran' && (job === undefined || l.job === job))

test(
  'two web instances and one worker on one PostgreSQL: the worker runs each occurrence once, the web instances none',
  { skip: STORE !== 'postgres' && 'split roles need a shared PostgreSQL', timeout: 30_000 },
  async () => {
    const database = await createDatabase(process.env.TEST_DATABASE_URL!, 'adapi_roles')
    const clock = new ShiftedClock('2026-11-08T23:58:00Z') // Sunday, two minutes before midnight UTC
    const env = { DATABASE_URL: database.url, PORT: '0', ADMIN_TOKEN, TRUST_PROXY: '1', LOG_LEVEL: 'info', WEBHOOKS_ALLOW_LOOPBACK: 'true' }
    const logs = { worker: logSink(), webA: logSink(), webB: logSink() }
    const started: Instance[] = []
    const receiver = await WebhookReceiver.start()
    try {
      const start = async (role: string, sink: ReturnType<typeof logSink>) => {
        const instance = await startInstance(loadSettings({ ...env, ROLE: role }), { clock, logStream: sink.stream, tickMs: 100 })
        started.push(instance)
        return instance
      }
      const worker = await start('worker', logs.worker)
      const [webA, webB] = [await start('web', logs.webA), await start('web', logs.webB)]
      assert.deepEqual([worker.role, webA.role, webB.role], ['worker', 'web', 'web'])
      const db = worker.store.db

      // The worker answers health checks only.
      assert.deepEqual((await call(worker.url, 'GET', '/healthz')).body, { status: 'ok', role: 'worker' })
      assert.equal((await call(worker.url, 'GET', '/readyz')).status, 200)
      assert.equal((await call(worker.url, 'GET', '/v1/account')).status, 404)

      // A weekly auto-pay advertiser, set up on web A; offers from both web instances, views on the other one.
      const account = await call(webA.url, 'POST', '/admin/v1/accounts', { email: `roles-${randomUUID()}@example.dev` }, admin)
      assert.equal(account.status, 201, account.text)
      const userId: string = account.body.user_id
      for (const [path, body] of [
        ['write-approval', { approved: true }],
        ['terms', { accepted: true }],
        ['billing', { mode: 'weekly_autopay', card_number: '4242424242424242' }],
      ] as const) {
        assert.equal((await call(webA.url, 'POST', `/admin/v1/accounts/${userId}/${path}`, body, admin)).status, 200)
      }
      const auth = { 'x-service-user-id': userId, 'x-service-api-key': account.body.api_key }
      const created = await call(webA.url, 'POST', '/v1/campaigns', campaignBody({ target_countries: ['RO'], cpm_usd: 10 }), auth)
      assert.equal(created.status, 201, created.text)
      const offers: { id: string; viewOn: Instance }[] = []
      for (let i = 0; i < 4; i++) {
        const [offerOn, viewOn] = i % 2 === 0 ? [webA, webB] : [webB, webA]
        const d = await call(offerOn.url, 'POST', '/serve/v1/decisions', { surface: 'extension', viewer_id: `roles-${i}`, country: 'RO' })
        assert.equal(d.status, 200, d.text)
        offers.push({ id: d.body.impression_id, viewOn })
      }
      clock.jumpTo('2026-11-08T23:58:30Z')
      for (const { id, viewOn } of offers) {
        assert.equal((await call(viewOn.url, 'POST', `/serve/v1/impressions/${id}/view`, { dwell_ms: 10_000 })).status, 204)
      }

      const watermark = async (job: string) =>
        (await db.selectFrom('job_watermarks').select('ran_through').where('job', '=', job).executeTakeFirst())?.ran_through.toISOString()

      // Monday 00:15: the rollup of Sunday.
      clock.jumpTo('2026-11-09T00:15:00.500Z')
      await until('the rollup', async () => ran(logs.worker.lines, 'rollups').length > 0)
      // Monday 06:00: the weekly invoices.
      clock.jumpTo('2026-11-09T06:00:00.500Z')
      await until('the invoicing occurrence', async () => (await watermark('invoicing')) === '2026-11-09T06:00:00.000Z')

      // Webhooks: written by the web instance that made the change, sent by the worker only.
      const hook = await call(webA.url, 'POST', '/v1/webhook-endpoints', { url: receiver.url, events: ['export.ready'] }, auth)
      assert.equal(hook.status, 201, hook.text)
      receiver.secret = hook.body.secret

      // An export queued on a web instance is woken on the worker at once (no minute tick passes here).
      const queued = await call(webB.url, 'POST', '/v1/exports', { start: '2026-11-08T00:00:00Z', end: '2026-11-09T00:00:00Z' }, auth)
      assert.equal(queued.status, 202, queued.text)
      const ready = await until(
        'the export',
        async () => {
          const job = await call(webA.url, 'GET', queued.body.status_url, undefined, auth)
          return job.body.status === 'ready' && job.body
        },
        5_000,
        250, // a read counts against the account's rate limit
      )
      assert.ok(ready.row_count >= 4, 'the four billable views of Sunday at least')
      const [hooked] = await receiver.waitFor(1, 'export.ready', 5_000)
      assert.ok(hooked!.verified)
      const delivered = (lines: Record<string, any>[]) => lines.filter((l) => l.msg === 'webhook delivered')
      await until('the delivery logged', async () => delivered(logs.worker.lines).length === 1)
      assert.deepEqual([...delivered(logs.webA.lines), ...delivered(logs.webB.lines)], [], 'ROLE=web sends no webhook')

      // Some more ticks: nothing runs again.
      await new Promise((r) => setTimeout(r, 500))

      const invoices = (await call(webB.url, 'GET', `/admin/v1/accounts/${userId}/invoices`, undefined, admin)).body.invoices
      assert.equal(invoices.length, 1, 'one invoice per period')
      assert.deepEqual(
        [invoices[0].period.end, invoices[0].delivered_micros, invoices[0].status, invoices[0].charge_attempts],
        ['2026-11-09T06:00:00.000Z', 40_000, 'paid', 1],
      )

      // Each occurrence ran once, on the worker; the web instances ran nothing.
      assert.deepEqual(
        ran(logs.worker.lines, 'invoicing').map((l) => l.due),
        ['2026-11-09T06:00:00.000Z'],
      )
      assert.deepEqual(
        ran(logs.worker.lines, 'rollups').map((l) => l.due),
        ['2026-11-09T00:15:00.000Z'],
      )
      assert.deepEqual(
        ran(logs.worker.lines, 'expiry').map((l) => l.due),
        ['2026-11-09T00:30:00.000Z'],
      )
      assert.deepEqual([...ran(logs.webA.lines), ...ran(logs.webB.lines)], [])
      assert.equal(await watermark('invoicing'), '2026-11-09T06:00:00.000Z')
      assert.ok(logs.worker.lines.every((l) => l.level < 50), 'the worker logged no error')
    } finally {
      for (const instance of started.reverse()) await instance.close()
      await receiver.close()
      await database.drop()
    }
  },
)

test(
  'under CLOCK=manual, a clock moved on one web instance runs the jobs there, and the other instances follow it',
  { skip: STORE !== 'postgres' && 'split roles need a shared PostgreSQL', timeout: 20_000 },
  async () => {
    const database = await createDatabase(process.env.TEST_DATABASE_URL!, 'adapi_roles')
    const env = { DATABASE_URL: database.url, PORT: '0', ADMIN_TOKEN, LOG_LEVEL: 'info', CLOCK: 'manual', CLOCK_START: '2026-11-08T23:00:00Z' }
    const logs = { worker: logSink(), webA: logSink(), webB: logSink() }
    const started: Instance[] = []
    try {
      for (const [role, sink] of [['worker', logs.worker], ['web', logs.webA], ['web', logs.webB]] as const) {
        started.push(await startInstance(loadSettings({ ...env, ROLE: role }), { logStream: sink.stream }))
      }
      const [worker, webA, webB] = started as [Instance, Instance, Instance]
      const moved = await call(webA.url, 'POST', '/admin/v1/clock', { now: '2026-11-09T07:00:00Z' }, admin)
      assert.deepEqual([moved.status, moved.body], [200, { now: '2026-11-09T07:00:00.000Z' }])
      // The operator API answers once the jobs due on the way have run: here, on the instance that moved.
      assert.deepEqual(
        ran(logs.webA.lines)
          .filter((l) => l.job !== 'exports')
          .map((l) => [l.job, l.due]),
        [
          ['traffic-review', '2026-11-09T00:10:00.000Z'],
          ['rollups', '2026-11-09T00:15:00.000Z'],
          ['expiry', '2026-11-09T00:30:00.000Z'],
          ['ledger-partitions', '2026-11-09T00:45:00.000Z'],
          ['invoicing', '2026-11-09T06:00:00.000Z'],
        ],
      )
      await until('the other instances to follow', async () => worker.clock.nowMs() === webA.clock.nowMs() && webB.clock.nowMs() === webA.clock.nowMs())
      // The worker found those occurrences done (the watermarks); the other web instance ran nothing.
      await new Promise((r) => setTimeout(r, 200))
      assert.deepEqual(ran(logs.worker.lines).filter((l) => l.job !== 'exports'), [])
      assert.deepEqual(ran(logs.webB.lines), [])
    } finally {
      for (const instance of started.reverse()) await instance.close()
      await database.drop()
    }
  },
)

test('ROLE is validated at start-up; split roles need PostgreSQL', () => {
  assert.equal(loadSettings({}).role, 'all')
  assert.equal(loadSettings({ ROLE: 'worker', DATABASE_URL: 'postgres://db/ads' }).role, 'worker')
  assert.throws(() => loadSettings({ ROLE: 'scheduler' }), /^Error: ROLE: must be "web", "worker" or "all", got "scheduler"$/)
  for (const role of ['web', 'worker']) {
    assert.throws(() => loadSettings({ ROLE: role }), new RegExp(`^Error: ROLE: ROLE=${role} needs DATABASE_URL \\(PostgreSQL\\)`))
  }
})
