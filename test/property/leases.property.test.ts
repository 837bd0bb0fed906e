import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { campaignBody, useService } from '../helpers/api.ts'
import { commitLedgerBatch } from '../../src/serving/ledger-batch.ts'
import { LeaseBook, type Taken } from '../../src/serving/leases.ts'
import { settleLeases } from '../../src/store/leases.ts'
import { impressionDebitMicros } from '../../src/domain/money.ts'
import { servingLimitsOf } from '../../src/domain/rate-limits.ts'
import { DEFAULT_CONFIG } from '../../src/domain/order-config.ts'
import { noKnownState, type ViewClaim } from '../../src/serving/ledger-claims.ts'

/**
 * Several serving instances (each its own `LeaseBook`, its own holder) bill one small campaign on one
 * store under random traffic, settlements, lease expiries and crashes (an instance dropped without
 * settling, its leases left to expire). After every schedule, once everything expired and a survivor
 * settled: never more billed than bought, every acknowledged billable view priced at a number of its
 * own, billed count and spend exact.
 */
const h = useService({}, { create_rate_limit_per_min: 10_000, outstanding_balance_cap_usd: null })
const NOW = new Date('2026-11-02T09:00:30.000Z')
const CPM = 1_234_567

/** A book that records the numbers of every batch that committed. */
class RecordingBook extends LeaseBook {
  readonly numbers: number[]
  constructor(numbers: number[]) {
    super()
    this.numbers = numbers
  }
  override commit(campaignId: string, taken: Taken): void {
    this.numbers.push(...taken.numbers)
    super.commit(campaignId, taken)
  }
}

type Step =
  | { kind: 'batch'; instance: number; size: number; repeats: number }
  | { kind: 'settle'; instance: number }
  | { kind: 'expire'; instance: number }
  | { kind: 'crash'; instance: number }

const INSTANCES = 3
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('batch' as const), instance: fc.nat(INSTANCES - 1), size: fc.integer({ min: 1, max: 40 }), repeats: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), instance: fc.nat(INSTANCES - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), instance: fc.nat(INSTANCES - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), instance: fc.nat(INSTANCES - 1) }) },
)

test('instances billing one campaign through leases, with expiries and crashes: exact, and never more than bought', async () => {
  const db = h.svc.service.store.db
  const adv = await h.advertiser()
  let n = 0
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 880, max: 960 }), fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 3, maxLength: 12 }), async (preset, waves) => {
      const res = await adv.post('/v1/campaigns', campaignBody({ impressions: 1000, cpm_usd: CPM / 1e6 }))
      assert.equal(res.status, 201, res.text)
      const campaignId = res.body.campaign_id as string
      // Most of it billed already (no ledger rows, no spend): the schedules reach the end of the campaign.
      await sql`UPDATE campaigns SET impressions_billed = ${preset}, impressions_leased = ${preset} WHERE campaign_id = ${campaignId}`.execute(db)
      const creative = await db.selectFrom('creatives').select('creative_id').where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
      const numbers: number[] = []
      const books = Array.from({ length: INSTANCES }, () => new RecordingBook(numbers))
      const seen: ViewClaim[] = []
      let acknowledged = 0
      const claim = (): ViewClaim => {
        n++
        const offer = { campaignId, creativeId: creative.creative_id, userId: adv.userId, surface: 'extension' as const, country: 'US', viewerKey: `lp-${process.pid}-${n}`, source: null, offeredAtMs: NOW.getTime() - 20_000, origin: 0 }
        return { impressionId: `lp-${process.pid}-${n}`, offer, dwellMs: 10_000, reason: null, limits: servingLimitsOf(DEFAULT_CONFIG).sources }
      }
      const run = async (s: Step): Promise<void> => {
        const book = books[s.instance]!
        if (s.kind === 'batch') {
          const fresh = Array.from({ length: s.size }, claim)
          const views = [...fresh, ...seen.slice(-s.repeats)]
          seen.push(...fresh)
          const result = await commitLedgerBatch(db, NOW, { clicks: [], views }, book, noKnownState())
          acknowledged += result.views.filter((v) => v.billable).length
        } else if (s.kind === 'settle') {
          await book.exclusive(() => book.settle(db, NOW))
        } else if (s.kind === 'expire') {
          await sql`UPDATE impression_leases SET expires_at = now() - interval '1 second' WHERE holder = ${book.holder}`.execute(db)
        } else {
          // Dropped without settling: its leases stay the dead holder's until they expire.
          await sql`UPDATE impression_leases SET expires_at = now() - interval '1 second' WHERE holder = ${book.holder}`.execute(db)
          books[s.instance] = new RecordingBook(numbers)
        }
      }
      for (const wave of waves) await Promise.all(wave.map(run))

      // Everything expires; a survivor's settle period recovers it all.
      await sql`UPDATE impression_leases SET expires_at = now() - interval '1 second' WHERE campaign_id = ${campaignId}`.execute(db)
      await settleLeases(db, 'survivor', NOW)
      const c = await db.selectFrom('campaigns').select(['impressions', 'impressions_billed', 'impressions_leased', 'lifetime_spent_micros', 'status']).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
      const left = await db.selectFrom('impression_leases').select(['holder', 'used', 'size']).where('campaign_id', '=', campaignId).execute()
      const ledger = await db
        .selectFrom('ledger_events')
        .select([sql<string>`count(*)`.as('n'), sql<string>`coalesce(sum(debit_micros), 0)`.as('spent')])
        .where('campaign_id', '=', campaignId)
        .where('event_type', '=', 'impression')
        .executeTakeFirstOrThrow()

      assert.ok(left.every((l) => l.holder === null && l.used === 0), 'every lease settled and free')
      assert.equal(c.impressions_leased, c.impressions_billed + left.reduce((s, l) => s + l.size, 0))
      assert.ok(c.impressions_billed <= c.impressions, 'never more billed than bought')
      assert.equal(c.impressions_billed, preset + acknowledged, 'billed = acknowledged billable views')
      assert.equal(Number(ledger.n), acknowledged)
      assert.equal(new Set(numbers).size, numbers.length, 'every billable view at a number of its own')
      assert.equal(numbers.length, acknowledged)
      assert.ok(numbers.every((x) => x > preset && x <= c.impressions))
      const priced = numbers.reduce((s, x) => s + impressionDebitMicros(CPM, x), 0)
      assert.equal(Number(ledger.spent), priced, 'the ledger debits each number\'s price')
      assert.equal(c.lifetime_spent_micros, priced, 'spend exact after settlement and recovery')
      assert.equal(c.status === 'completed', c.impressions_billed === c.impressions)
    }),
    { numRuns: 12 },
  )
})
