import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql } from 'kysely'
import { campaignBody, Client, useService } from '../helpers/api.ts'
import { advance, decide, privateCountry, type Decision } from '../helpers/serving.ts'
import { portalAdvertiser, signInAgain } from '../helpers/portal.ts'
import { microsToCents } from '../../src/domain/money.ts'
import { exportCsv } from '../helpers/exports.ts'
import { verifyRange } from '../helpers/ledger.ts'
import { readSourceOutcomes } from '../../src/store/traffic-quality.ts'

// The daily traffic review (issue 32, part 2; docs/invalid-traffic.md): at 00:10 UTC the closed day's
// traffic is scored per source and per viewer; what invalid ones billed is voided (it then counts as
// invalid_traffic) and its debits come back as one credit per account tied to the day, shown in the
// portal and applied to the next invoice. The manual clock starts Monday 2026-11-02 09:00 UTC.

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db
const from = (address: string) => new Client(h, { 'x-forwarded-for': address })
const DAY = '2026-11-02'

/** Decisions for `viewers` from `address`, `wait` seconds, then each view with its dwell; returns the offers. */
async function round(country: string, address: string, viewers: string[], wait: number, dwell: (i: number) => number, topics?: string[]): Promise<Decision[]> {
  const offers = await Promise.all(viewers.map((viewer_id) => decide(h.anonymous, { country, viewer_id, ...(topics ? { topics } : {}) }, address)))
  await advance(h, wait)
  const filled = offers.filter((o): o is Decision => o !== null)
  assert.equal(filled.length, viewers.length)
  await Promise.all(filled.map((o, i) => from(address).post(`/serve/v1/impressions/${o.impression_id}/view`, { dwell_ms: dwell(i) })))
  return filled
}

test('the review voids a bot source\'s billed impressions, credits exactly their debits, and the invoice applies the credit', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  const created = await adv.api.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 2000, cpm_usd: 5 }))
  assert.equal(created.status, 201, created.text)
  const campaignId: string = created.body.campaign_id

  // A bot behind one address: 40 invented viewers, dwell just over the threshold, each view exactly
  // ten seconds after its decision. An office behind another: 30 people, varied dwell and timing, a click a round,
  // topics from their projects' manifests (what the real clients send).
  const bots = Array.from({ length: 40 }, (_, i) => `review-bot-${process.pid}-${i}`)
  const office = Array.from({ length: 30 }, (_, i) => `review-office-${process.pid}-${i}`)
  let honest = 0
  for (const [r, wait] of [13, 21, 34].entries()) {
    await round(country, '203.0.113.120', bots, 10, () => 9_600)
    const dwell = (i: number) => [9_800, 12_000, 20_000, 31_000, 4_000][(i + r) % 5]!
    const offers = await round(country, '198.51.100.77', office, wait, dwell, ['typescript', 'react'])
    // Billable: at least 9.5 s, and no longer than the time since the decision (plus a second).
    honest += office.filter((_, i) => dwell(i) >= 9_500 && dwell(i) <= wait * 1000 + 1000).length
    for (const o of offers.filter((_, i) => i % 30 === r)) await from('198.51.100.77').get(`/serve/v1/impressions/${o.impression_id}/click`)
  }
  const botDebits = await sql<{ n: number; micros: number }>`
    SELECT count(*)::int AS n, coalesce(sum(debit_micros), 0)::int8 AS micros FROM ledger_events
    WHERE campaign_id = ${campaignId} AND event_type = 'impression' AND source = '203.0.113.120'`.execute(db())
  assert.deepEqual(botDebits.rows[0], { n: 120, micros: 600_000 })

  // The next day at 00:20: the review ran at 00:10, the rollups at 00:15.
  await advance(h, (15 * 3600) + (20 * 60))
  const voided = await db().selectFrom('ledger_events').select(['source', 'reason', 'debit_micros', 'billable']).where('campaign_id', '=', campaignId).where('event_type', '=', 'voided_impression').execute()
  assert.equal(voided.length, 120)
  assert.ok(voided.every((v) => v.source === '203.0.113.120' && v.reason === 'invalid_traffic' && v.debit_micros === 0 && !v.billable))
  // Each voided row holds the impression key of the row it voids (migration 0040): the bot's 120 impressions, each once.
  const linked = await sql<{ rows: number; keys: number }>`
    SELECT count(*)::int AS rows, count(DISTINCT v.impression_key)::int AS keys
    FROM ledger_events v JOIN ledger_events e ON e.impression_key = v.impression_key AND e.event_type = 'impression' AND e.billable
    WHERE v.campaign_id = ${campaignId} AND v.event_type = 'voided_impression' AND e.source = '203.0.113.120'`.execute(db())
  assert.deepEqual(linked.rows[0], { rows: 120, keys: 120 })
  // The review simulation's read-out joins them the same way: the bot's source lost all it billed, the office's nothing.
  const outcomes = await readSourceOutcomes(db(), Date.parse(`${DAY}T00:00:00Z`), Date.parse('2026-11-03T00:00:00Z'))
  const bot = outcomes.find((o) => o.source === '203.0.113.120')
  assert.deepEqual([bot?.billedUnits, bot?.voidedUnits, bot?.voidedMicros], [120, 120, 600_000])
  const officeOutcome = outcomes.find((o) => o.source === '198.51.100.77')
  assert.deepEqual([officeOutcome?.voidedUnits, officeOutcome?.voidedMicros], [0, 0])
  const credited = await db().selectFrom('traffic_credits').select(['units', 'micros']).where('campaign_id', '=', campaignId).execute()
  assert.deepEqual(credited, [{ units: 120, micros: 600_000 }])
  const credits = await db().selectFrom('credits').select(['amount_cents', 'memo', sql<string>`ivt_day::text`.as('day')]).where('user_id', '=', adv.userId).execute()
  assert.deepEqual(credits, [{ amount_cents: microsToCents(600_000), memo: `Invalid traffic on ${DAY}: 120 billed units voided and credited back`, day: DAY }])

  // Stats of the closed day, on the rollup paths: the bot's impressions are invalid traffic now.
  for (const granularity of ['day', 'hour']) {
    const stats = await adv.api.get(`/v1/stats?campaign_id=${campaignId}&start=${DAY}T00:00:00Z&end=2026-11-03T00:00:00Z&granularity=${granularity}`)
    assert.equal(stats.status, 200, stats.text)
    assert.equal(stats.body.totals.billable_impressions, honest, granularity)
    assert.equal(stats.body.totals.non_billable.invalid_traffic, 120, granularity)
    assert.equal(stats.body.totals.spend_micros, (honest + 120) * 5_000, 'spend is what was debited; the money comes back as a credit')
  }

  // ledger-export-v3 lists each voided impression with its reason; v2 keeps the rows it always had.
  const v3 = await exportCsv(adv.api, { start: `${DAY}T00:00:00Z`, end: '2026-11-03T00:00:00Z', campaign_ids: [campaignId], schema_version: 'ledger-export-v3' })
  const voidedRows = v3.rows.filter((r) => r[1] === 'voided_impression')
  assert.equal(voidedRows.length, 120)
  assert.ok(voidedRows.every((r) => r[6] === 'false' && r[7] === '0' && r[9] === 'invalid_traffic'))
  const v2 = await exportCsv(adv.api, { start: `${DAY}T00:00:00Z`, end: '2026-11-03T00:00:00Z', campaign_ids: [campaignId], schema_version: 'ledger-export-v2' })
  assert.equal(v2.rows.filter((r) => r[1]!.startsWith('voided_')).length, 0)

  // A rerun reviews nothing twice.
  const rerun = await h.admin.post('/admin/v1/jobs/traffic-review/run')
  assert.equal(rerun.status, 200, rerun.text)
  assert.equal(rerun.body.result.days_reviewed, 0)
  assert.equal((await db().selectFrom('credits').select('credit_id').where('user_id', '=', adv.userId).execute()).length, 1)

  // The portal says so, on the campaign page and the billing page.
  await signInAgain(adv)
  const page = await adv.browser.get(`/portal/campaigns/${campaignId}`)
  assert.equal(page.status, 200)
  assert.match(page.words, /Invalid traffic credited back/)
  assert.match(page.words, new RegExp(`${DAY} 120 \\$0\\.60`))
  assert.match(page.words, /\$0\.60 credited back for invalid traffic/)
  const billing = await adv.browser.get('/portal/billing')
  assert.match(billing.words, new RegExp(`Invalid traffic Invalid traffic on ${DAY}: 120 billed units voided and credited back \\$0\\.60`))

  // Monday 2026-11-09 06:00: the weekly invoice applies the credit.
  await advance(h, Math.ceil((Date.parse('2026-11-09T06:05:00Z') - h.svc.clock.nowMs()) / 1000))
  const invoices = await h.admin.get(`/admin/v1/accounts/${adv.userId}/invoices`)
  assert.equal(invoices.status, 200, invoices.text)
  const [invoice] = invoices.body.invoices
  assert.equal(invoice.credits_applied_cents, 60)
  assert.equal(invoice.amount_cents, microsToCents((honest + 120) * 5_000))
  assert.equal(invoice.total_cents, invoice.amount_cents - 60)

  // The verifiable ledger (issue 39): the day closed after its review, voided rows included, and the invoice took all of it.
  const api = { baseUrl: h.baseUrl, userId: adv.userId, apiKey: adv.api.apiKey, headers: { 'x-forwarded-for': adv.api.ip }, pollMs: 10 }
  const verified = await verifyRange(api, DAY, '2026-11-08')
  assert.ok(verified.verified, JSON.stringify(verified))
  assert.equal(verified.figures.days[0]!.rows, verified.figures.rows)
  assert.equal(verified.figures.uninvoiced_micros, 0)
})
