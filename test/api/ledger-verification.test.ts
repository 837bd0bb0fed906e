import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { decide, deliver, privateCountry, view, advance } from '../helpers/serving.ts'
import { verifyRange, type ApiAccess } from '../helpers/ledger.ts'

// Issue 39: closed days' roots, the public log, invoices' day lists, and the verifier over them.
// The clock starts Monday 2026-11-02 09:00 UTC; each test runs in its own stretch of service time.
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db

async function moveTo(iso: string): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { now: iso })
  assert.equal(res.status, 200, res.text)
}

const access = (adv: Advertiser): ApiAccess => ({ baseUrl: h.baseUrl, userId: adv.userId, apiKey: adv.apiKey, headers: { 'x-forwarded-for': adv.ip }, pollMs: 10 })

async function campaign(adv: Advertiser, country: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 10_000, cpm_usd: 3.7, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

/** A short view (not billable) beside the billable ones, so days hold rows of several kinds. */
async function shortView(country: string): Promise<void> {
  const offer = await decide(h.anonymous, { country, viewer_id: `short-${Math.random()}` })
  if (offer) {
    await advance(h, 3)
    assert.equal(await view(h.anonymous, offer.impression_id, 3_000), 204)
  }
}

const dayAt = (start: string, i: number) => new Date(Date.parse(start) + i * 86_400_000).toISOString().slice(0, 10)

test('30 days of traffic with pauses, credits and clock jumps verify clean', async () => {
  await moveTo('2026-11-02T09:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  const campaignId = await campaign(adv, country)
  let delivered = 0
  for (let i = 0; i < 30; i++) {
    const date = dayAt('2026-11-02T00:00:00Z', i)
    if (i % 9 === 4) {
      // A jump over two days at once: the scheduler stops at every due instant on the way.
      i += 2
      continue
    }
    // Mondays: a delivery just before and just after the 06:00 invoice instant, so the invoice splits the day.
    if (i > 0 && i % 7 === 0) {
      await moveTo(`${date}T05:59:00Z`)
      delivered += await deliver(h, country, 1)
      await moveTo(`${date}T06:00:30Z`)
      delivered += await deliver(h, country, 1)
    }
    await moveTo(`${date}T09:00:00Z`)
    if (i % 7 === 2) {
      assert.equal((await adv.post(`/v1/campaigns/${campaignId}/pause`)).status, 200)
      await shortView(country)
      continue
    }
    if (i % 7 === 3) assert.equal((await adv.post(`/v1/campaigns/${campaignId}/resume`)).status, 200)
    if (i === 10) assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/credits`, { amount_cents: 2, memo: 'goodwill' })).status, 201)
    delivered += await deliver(h, country, 1 + (i % 3))
    if (i % 4 === 0) await shortView(country)
  }
  await moveTo('2026-12-08T00:20:00Z')
  const result = await verifyRange(access(adv), '2026-11-02', '2026-12-07')
  assert.ok(result.verified, JSON.stringify(result))
  const f = result.figures
  assert.equal(f.billable_impressions, delivered)
  assert.ok(f.days_closed >= 15, `days closed: ${f.days_closed}`)
  assert.ok(f.invoices_checked >= 4, `invoices: ${f.invoices_checked}`)
  assert.equal(f.invoiced_micros + f.uninvoiced_micros, f.debit_micros)
  // The API's own figures agree: the balance's unbilled micros are what the verifier found not yet invoiced.
  assert.equal((await adv.get('/v1/account')).body.balance.unbilled_delivered_micros, f.uninvoiced_micros)
  const invoices = (await adv.get('/v1/invoices')).body.invoices
  assert.ok(invoices.some((i: any) => i.credits_applied_cents > 0), 'the credit was applied')
  for (const inv of invoices) assert.equal(inv.days.reduce((n: number, d: any) => n + d.micros, 0), inv.delivered_micros)
})

/** One account, two days of traffic, closed: the day to tamper with is the first. */
async function closedScenario(start: string): Promise<{ adv: Advertiser; day: string; to: string }> {
  await moveTo(`${start}T09:00:00Z`)
  const adv = await h.advertiser({ billing: 'card' })
  const country = privateCountry()
  await campaign(adv, country)
  await deliver(h, country, 2)
  await shortView(country)
  await deliver(h, country, 1)
  const next = dayAt(`${start}T00:00:00Z`, 1)
  await moveTo(`${next}T09:00:00Z`)
  await deliver(h, country, 2)
  await moveTo(`${dayAt(`${start}T00:00:00Z`, 2)}T00:20:00Z`)
  const clean = await verifyRange(access(adv), start, next)
  assert.ok(clean.verified, JSON.stringify(clean))
  return { adv, day: start, to: next }
}

async function rowsOf(userId: string, day: string) {
  const start = new Date(`${day}T00:00:00Z`)
  return db()
    .selectFrom('ledger_events')
    .select(['event_id', 'event_type', 'debit_micros', 'occurred_at'])
    .where('user_id', '=', userId)
    .where('occurred_at', '>=', start)
    .where('occurred_at', '<', new Date(start.getTime() + 86_400_000))
    .orderBy('occurred_at')
    .orderBy('event_id')
    .execute()
}

test('a changed debit after the close is caught and names the day', async () => {
  const { adv, day, to } = await closedScenario('2026-12-14')
  const [row] = (await rowsOf(adv.userId, day)).filter((r) => r.event_type === 'impression')
  await sql`UPDATE ledger_events SET debit_micros = debit_micros + 1 WHERE event_id = ${row!.event_id}`.execute(db())
  const result = await verifyRange(access(adv), day, to)
  assert.equal(result.verified, false)
  assert.equal(!result.verified && result.discrepancy.date, day)
  assert.equal(!result.verified && result.discrepancy.kind, 'figures_mismatch')
})

test('a deleted row after the close is caught and names the day', async () => {
  const { adv, day, to } = await closedScenario('2026-12-17')
  const rows = await rowsOf(adv.userId, day)
  await sql`DELETE FROM ledger_events WHERE event_id = ${rows.at(-1)!.event_id}`.execute(db())
  const result = await verifyRange(access(adv), day, to)
  assert.equal(result.verified, false)
  assert.equal(!result.verified && result.discrepancy.date, day)
  assert.match(!result.verified ? result.discrepancy.message : '', /removed/)
})

test('two rows reordered after the close are caught and name the day', async () => {
  const { adv, day, to } = await closedScenario('2026-12-20')
  const rows = await rowsOf(adv.userId, day)
  const a = rows.find((r) => r.event_type === 'view')!
  const b = rows.find((r) => r.event_type === 'impression' && r.occurred_at.getTime() !== a.occurred_at.getTime())!
  await sql`UPDATE ledger_events SET occurred_at = CASE event_id WHEN ${a.event_id} THEN ${b.occurred_at}::timestamptz ELSE ${a.occurred_at}::timestamptz END
            WHERE event_id IN (${a.event_id}, ${b.event_id})`.execute(db())
  const result = await verifyRange(access(adv), day, to)
  assert.equal(result.verified, false)
  assert.equal(!result.verified && result.discrepancy.date, day)
  assert.equal(!result.verified && result.discrepancy.kind, 'root_mismatch')
})

test('the day list, the proof and the public log answer as documented', async () => {
  await moveTo('2026-12-23T09:00:00Z')
  const adv = await h.advertiser({ billing: 'card' })
  const days = await adv.get('/v1/ledger/days?from=2026-11-01&to=2026-12-31')
  // Closed through yesterday: a day up to it without rows of the account is not listed.
  assert.equal(days.status, 200)
  assert.deepEqual(days.body, { days: [], closed_through: '2026-12-22', next_cursor: null })
  assert.equal((await adv.get('/v1/ledger/days?from=2026-12-31&to=2026-11-01')).status, 400)
  assert.equal((await adv.get('/v1/ledger/days?from=2026-02-30&to=2026-03-01')).status, 400)
  assert.equal((await adv.get('/v1/ledger/days/2026-12-01/proof')).status, 404)
  assert.equal((await adv.get('/v1/invoices/inv_nope')).status, 404)
  const log = await h.anonymous.get('/transparency.json?from=2026-11-02&to=2026-11-08')
  assert.equal(log.status, 200)
  assert.equal(log.body.closed_through, '2026-12-22')
  assert.ok(log.body.heads.length >= 2 && log.body.heads.length < 7, 'days without rows have no head')
  for (const head of log.body.heads) assert.match(head.root_hash, /^[0-9a-f]{64}$/)
  assert.equal(days.body.closed_through, '2026-12-22')
  const page = await h.anonymous.get('/transparency', { headers: { accept: 'text/html' } })
  assert.equal(page.status, 200)
  assert.match(page.text, /Ledger transparency log/)
  assert.doesNotMatch(page.text, /usr_/)
})
