import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { campaignBody, useService } from '../helpers/api.ts'
import { advance, privateCountry, type Decision } from '../helpers/serving.ts'
import { impressionDebitMicros } from '../../src/domain/money.ts'
import { BILLABLE_DWELL_MS, OFFER_TTL_MS, VIEWER_FREQUENCY_MS } from '../../src/domain/delivery.ts'
import { utcDay } from '../../src/domain/clicks.ts'

/**
 * A mixed auction over random traffic: several campaigns of both kinds, most of their inventory
 * already billed, compete for decisions on both surfaces while random waves of decisions, views
 * (of every dwell), clicks (repeats included), clock moves and cancellations hit the real service
 * over HTTP, concurrently within a wave (ten seconds of service time pass between waves). Afterwards, from the ledger and the campaigns:
 *  - never more billed than bought, per campaign, in its unit;
 *  - delivered = preset + the billable units in the ledger, and spend = Σ ledger debits = Σ of the
 *    n-th prices of exactly those numbers (impressionDebitMicros), for both kinds;
 *  - a click campaign's views debit nothing; an impression campaign's clicks bill nothing;
 *  - at most one click row per impression, at most one billable click per viewer, campaign and
 *    UTC day, none on an offer past the view window or made after the campaign was cancelled;
 *  - the views' rules still hold for every campaign: a billable impression dwelt 9.5 s and one
 *    viewer has at most one per surface per ten seconds.
 */
const h = useService({}, { create_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })
const db = () => h.svc.service.store.db

type Action =
  | { t: 'decide'; surface: 'extension' | 'terminal'; viewer: number }
  | { t: 'view'; offer: number; dwell: number }
  | { t: 'click'; offer: number }
  | { t: 'advance'; seconds: number }
  | { t: 'cancel'; campaign: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ t: fc.constant('decide' as const), surface: fc.constantFrom('extension' as const, 'terminal' as const), viewer: fc.nat(5) }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('view' as const), offer: fc.nat(1000), dwell: fc.constantFrom(3_000, 9_499, 9_500, 10_000, 40_000) }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('click' as const), offer: fc.nat(1000) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('advance' as const), seconds: fc.constantFrom(1, 5, 11, 1_800, 3_601, 30_000) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('cancel' as const), campaign: fc.nat(3) }) },
)

const campaignSpec = fc.record({
  kind: fc.constantFrom('impression' as const, 'click' as const),
  cpm: fc.constantFrom(0.5, 1.234567, 3, 40, 100),
  surface: fc.constantFrom('extension' as const, 'terminal' as const),
  preset: fc.integer({ min: 992, max: 999 }),
})

/**
 * An impression campaign and a click campaign one unit short of sold out: the impression campaign
 * ($3.00) outranks the click one ($100 × the 1 % prior = $1.00) and its one billable view sells it
 * out; the next decision goes to the click campaign, whose one billable click sells it out.
 */
const SELL_OUT: { specs: { kind: 'impression' | 'click'; cpm: number; surface: 'extension' | 'terminal'; preset: number }[]; waves: Action[][] } = {
  specs: [
    { kind: 'impression', cpm: 3, surface: 'extension', preset: 999 },
    { kind: 'click', cpm: 100, surface: 'extension', preset: 999 },
  ],
  waves: [
    [{ t: 'decide', surface: 'extension', viewer: 0 }],
    [{ t: 'view', offer: 0, dwell: 10_000 }],
    [{ t: 'decide', surface: 'extension', viewer: 1 }],
    [{ t: 'click', offer: 1 }],
  ],
}

let run = 0
/** What the runs reached, so that a generator drifting to traffic that bills nothing fails the test. */
const reached = { clicks: 0, impressions: 0, soldOut: 0 }

/**
 * Billed after the cancellation on an offer made at or after it. A unit billed at the very instant of
 * the cancellation (the manual clock stands still) may have committed before it: that is allowed.
 */
const afterCancel = (cancelledAt: Date | null, offeredAtMs: number, billedAt: Date) =>
  cancelledAt !== null && offeredAtMs >= cancelledAt.getTime() && billedAt.getTime() > cancelledAt.getTime()

test('a mixed auction of impression and click campaigns keeps every invariant of both kinds', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(campaignSpec, { minLength: 2, maxLength: 4 }), fc.array(fc.array(action, { minLength: 1, maxLength: 8 }), { minLength: 4, maxLength: 10 }), async (specs, waves) => {
      run++
      const started = performance.now()
      const adv = await h.advertiser()
      const country = privateCountry()
      const campaigns: { id: string; kind: 'impression' | 'click'; cpmMicros: number; preset: number }[] = []
      for (const s of specs) {
        const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], target_surface: s.surface, impressions: 1000, kind: s.kind, cpm_usd: s.cpm }))
        assert.equal(res.status, 201, res.text)
        campaigns.push({ id: res.body.campaign_id, kind: s.kind, cpmMicros: Math.round(s.cpm * 1e6), preset: s.preset })
        // Most of it billed already (no ledger rows, no spend): the traffic reaches the end of the campaign.
        await sql`UPDATE campaigns SET impressions_billed = ${s.preset}, impressions_leased = ${s.preset} WHERE campaign_id = ${res.body.campaign_id}`.execute(db())
      }
      await advance(h, 2) // the auction index reloads delivery counts

      const offers: Decision[] = []
      const act = async (a: Action): Promise<void> => {
        if (a.t === 'decide') {
          const res = await h.anonymous.post('/serve/v1/decisions', { surface: a.surface, country, viewer_id: `mixed-${process.pid}-${run}-${a.viewer}` })
          if (res.status === 200) offers.push(res.body)
          else assert.equal(res.status, 204, res.text)
        } else if (a.t === 'view' || a.t === 'click') {
          const o = offers[a.offer % Math.max(1, offers.length)]
          if (!o) return
          if (a.t === 'view') assert.ok([204, 410].includes((await h.anonymous.post(`/serve/v1/impressions/${o.impression_id}/view`, { dwell_ms: a.dwell })).status))
          else assert.equal((await h.anonymous.get(new URL(o.click_url).pathname)).status, 302)
        } else if (a.t === 'advance') {
          await advance(h, a.seconds)
        } else {
          const c = campaigns[a.campaign % campaigns.length]!
          assert.ok([200, 409].includes((await adv.delete(`/v1/campaigns/${c.id}`)).status))
        }
      }
      for (const wave of waves) {
        await Promise.all(wave.map(act))
        // Ten seconds between waves: the next wave's views may be billable (dwell within the elapsed time).
        await advance(h, 10)
      }

      await h.svc.service.serving.writer.flush()
      await h.svc.service.serving.writer.settleLeases()
      const ids = campaigns.map((c) => c.id)
      const rows = await db()
        .selectFrom('ledger_events')
        .select(['campaign_id', 'impression_key', 'event_type', 'billable', 'debit_micros', 'dwell_ms', 'viewer_key', 'surface', 'occurred_at', 'offer_age_ms'])
        .where('campaign_id', 'in', ids)
        .orderBy('event_id')
        .execute()
      const stored = await db().selectFrom('campaigns').select(['campaign_id', 'impressions', 'impressions_billed', 'lifetime_spent_micros', 'cancelled_at', 'status']).where('campaign_id', 'in', ids).execute()
      // The offer's instant: each view and click row carries its age (offers are counted, not stored). By impression key, as hex.
      const keyOf = (r: { impression_key: Buffer }) => r.impression_key.toString('hex')
      const offeredAt = new Map(rows.flatMap((r) => (r.offer_age_ms === null ? [] : [[keyOf(r), r.occurred_at.getTime() - r.offer_age_ms] as const])))

      for (const c of campaigns) {
        const s = stored.find((r) => r.campaign_id === c.id)!
        const mine = rows.filter((r) => r.campaign_id === c.id)
        const unit = c.kind === 'click' ? 'click' : 'impression'
        const billed = mine.filter((r) => r.event_type === unit && r.billable)
        assert.ok(s.impressions_billed <= s.impressions, 'never more billed than bought')
        assert.equal(s.impressions_billed, c.preset + billed.length, 'delivered = preset + billable units in the ledger')
        reached[c.kind === 'click' ? 'clicks' : 'impressions'] += billed.length
        if (s.impressions_billed === s.impressions) reached.soldOut++
        if (process.env.PROPERTY_TRACE) console.log(`run ${run}: ${c.kind} billed ${billed.length}, ${Math.round(performance.now() - started)} ms`)
        const debits = mine.reduce((sum, r) => sum + r.debit_micros, 0)
        const priced = billed.reduce((sum, _, i) => sum + impressionDebitMicros(c.cpmMicros, c.preset + 1 + i), 0)
        assert.equal(debits, priced, 'Σ ledger debits = Σ n-th prices')
        assert.equal(s.lifetime_spent_micros, debits, 'spend = Σ ledger debits')
        // A cancelled campaign stays cancelled when views or clicks of its earlier offers sell it out.
        if (s.cancelled_at === null) assert.equal(s.status === 'completed', s.impressions_billed === s.impressions)
        else assert.notEqual(s.status, 'completed')
        if (c.kind === 'click') {
          assert.ok(mine.filter((r) => r.event_type === 'impression').every((r) => r.debit_micros === 0), 'a click campaign\'s views bill nothing')
          const days = billed.map((r) => `${r.viewer_key}|${utcDay(r.occurred_at.getTime())}`)
          assert.equal(new Set(days).size, days.length, 'one billable click per viewer per campaign per UTC day')
          for (const r of billed) {
            const at = offeredAt.get(keyOf(r))
            assert.ok(at !== undefined, 'a billed click has its offer')
            assert.ok(r.occurred_at.getTime() - at <= OFFER_TTL_MS, 'never on an offer past the view window')
            assert.ok(!afterCancel(s.cancelled_at, at, r.occurred_at), 'never on an offer made after the cancellation')
          }
        } else {
          assert.ok(mine.filter((r) => r.event_type === 'click').every((r) => !r.billable && r.debit_micros === 0), 'an impression campaign\'s clicks bill nothing')
          for (const r of billed) assert.ok(!afterCancel(s.cancelled_at, offeredAt.get(keyOf(r))!, r.occurred_at))
        }
      }
      const clickKeys = rows.filter((r) => r.event_type === 'click').map(keyOf)
      assert.equal(new Set(clickKeys).size, clickKeys.length, 'at most one click row per impression')
      const impressions = rows.filter((r) => r.event_type === 'impression')
      assert.ok(impressions.every((r) => r.dwell_ms! >= BILLABLE_DWELL_MS))
      const lastBy = new Map<string, number>()
      for (const r of [...impressions].sort((a, b) => a.occurred_at.getTime() - b.occurred_at.getTime())) {
        const slot = `${r.viewer_key}|${r.surface}`
        const last = lastBy.get(slot)
        assert.ok(last === undefined || r.occurred_at.getTime() - last >= VIEWER_FREQUENCY_MS, 'one billable impression per viewer per surface per ten seconds')
        lastBy.set(slot, r.occurred_at.getTime())
      }
    }),
    // Each run is a few seconds of real HTTP traffic; a failure is shrunk for at most two minutes.
    {
      // One run always sells both kinds out (a random dozen usually do, but not always), so the
      // coverage check below never depends on luck; the random runs follow.
      examples: [[SELL_OUT.specs, SELL_OUT.waves]],
      numRuns: Number(process.env.PROPERTY_RUNS ?? 12),
      interruptAfterTimeLimit: 120_000,
      markInterruptAsFailure: true,
      // Replays a reported counterexample: PROPERTY_SEED and PROPERTY_PATH from the failure message.
      ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED), path: process.env.PROPERTY_PATH, endOnFailure: true } : {}),
    },
  )
  if (!process.env.PROPERTY_SEED) assert.ok(reached.clicks > 0 && reached.impressions > 0 && reached.soldOut > 0, JSON.stringify(reached))
})
