import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, deliver, privateCountry } from '../helpers/serving.ts'
import { CADENCE_OF, isBillingMode, isInstant, nextRun, type BillingMode } from '../../src/domain/billing-schedule.ts'
import { microsToCents } from '../../src/domain/money.ts'

/**
 * A year of schedule in one test (issue 19): a manual clock moved in random
 * steps (hours to weeks) over 400 days, with weekly, Net 30 and semi-monthly
 * accounts (and one that switches between them) and traffic through the real
 * serving endpoints in between. Every invoice falls on its cadence, periods
 * tile time per account, an instant invoices exactly when something is due,
 * and Σ invoices + unbilled = Σ ledger debits to the micro.
 */
const h = useService({}, { create_rate_limit_per_min: 10_000, read_rate_limit_per_min: 10_000, outstanding_balance_cap_usd: null })

const DAY_S = 24 * 3600
const MODES: BillingMode[] = ['weekly_autopay', 'net30_invoice', 'legacy_semimonthly_autopay']

interface Step {
  hours: number
  /** Billable impressions to deliver to each account after the move (0 to 3). */
  deliveries: number[]
  /** The mode the switching account moves to after this step, if any. */
  switchTo: BillingMode | null
}

const step: fc.Arbitrary<Step> = fc.record({
  hours: fc.oneof(fc.integer({ min: 1, max: 48 }), fc.integer({ min: 49, max: 24 * 21 })),
  deliveries: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 4 }),
  switchTo: fc.option(fc.constantFrom(...MODES), { freq: 8 }),
})

interface Account {
  adv: Advertiser
  country: string
  /** Null for the account that switches modes. */
  fixedMode: BillingMode | null
}

const ENROLL: Record<BillingMode, Record<string, unknown>> = {
  weekly_autopay: { mode: 'weekly_autopay', card_number: '4242424242424242' },
  net30_invoice: { mode: 'net30_invoice', credit_limit_cents: 500_000 },
  legacy_semimonthly_autopay: { mode: 'legacy_semimonthly_autopay', card_number: '4242424242424242' },
}

async function enroll(adv: Advertiser, mode: BillingMode): Promise<void> {
  const res = await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, ENROLL[mode])
  assert.equal(res.status, 200, res.text)
}

async function openAccount(fixedMode: BillingMode | null, cpm: number): Promise<Account> {
  const adv = await h.advertiser({ billing: 'none' })
  await enroll(adv, fixedMode ?? 'weekly_autopay')
  const country = privateCountry()
  // 20 blocks: far more than a year of this traffic delivers.
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], cpm_usd: cpm, impressions: 20_000 }))
  assert.equal(res.status, 201, res.text)
  return { adv, country, fixedMode }
}

interface Invoice {
  billing_mode: string
  period: { start: string; end: string }
  finalized_at: string
  delivered_micros: number
  amount_cents: number
}

async function debitsBetween(userId: string, from: Date | null, to: Date | null): Promise<number> {
  let q = h.svc.service.store.db
    .selectFrom('ledger_events')
    .select(sql<string>`coalesce(sum(debit_micros), 0)`.as('micros'))
    .where('user_id', '=', userId)
    .where('event_type', '=', 'impression')
  if (from) q = q.where('occurred_at', '>=', from)
  if (to) q = q.where('occurred_at', '<', to)
  return Number((await q.executeTakeFirstOrThrow()).micros)
}

async function checkAccount(a: Account, now: Date): Promise<void> {
  const userId = a.adv.userId
  const db = h.svc.service.store.db
  const createdAt = (await db.selectFrom('accounts').select('created_at').where('user_id', '=', userId).executeTakeFirstOrThrow()).created_at
  const listed: Invoice[] = (await h.admin.get(`/admin/v1/accounts/${userId}/invoices`)).body.invoices
  const invoices = [...listed].sort((x, y) => x.period.end.localeCompare(y.period.end))
  assert.ok(invoices.length > 0, 'a year of traffic is invoiced')

  // Periods tile time: each starts where the previous ended (the first at account creation).
  let start = createdAt.toISOString()
  for (const i of invoices) {
    assert.equal(i.period.start, start, 'no gap and no overlap')
    assert.ok(i.period.end > i.period.start)
    start = i.period.end
    // Each invoice falls on its own cadence, finalized at that instant (the manual clock stops there).
    assert.ok(isBillingMode(i.billing_mode), i.billing_mode)
    if (!isBillingMode(i.billing_mode)) continue
    if (a.fixedMode) assert.equal(i.billing_mode, a.fixedMode)
    assert.ok(isInstant(CADENCE_OF[i.billing_mode], new Date(i.period.end)), `${i.period.end} is not a ${CADENCE_OF[i.billing_mode]} instant`)
    assert.equal(i.finalized_at, i.period.end)
    // The invoice holds exactly the delivery of its period, by ledger time.
    assert.equal(i.delivered_micros, await debitsBetween(userId, new Date(i.period.start), new Date(i.period.end)))
    assert.ok(i.amount_cents > 0, 'a period with nothing to bill makes no invoice')
  }

  // Σ invoices + unbilled = Σ ledger debits = Σ campaign spend, to the micro.
  const debits = await debitsBetween(userId, null, null)
  const account = (await a.adv.get('/v1/account')).body
  const campaigns = (await a.adv.get('/v1/campaigns')).body.campaigns as { lifetime_spent_micros: number }[]
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)
  assert.equal(sum(invoices.map((i) => i.delivered_micros)) + account.balance.unbilled_delivered_micros, debits)
  assert.equal(sum(campaigns.map((c) => c.lifetime_spent_micros)), debits)
  assert.equal(sum(invoices.map((i) => i.amount_cents)), microsToCents(sum(invoices.map((i) => i.delivered_micros))))

  // An account on one cadence is invoiced at exactly those of its instants where something was due.
  if (!a.fixedMode) return
  const invoicedAt = new Set(invoices.map((i) => i.period.end))
  let billedCents = 0
  for (let at = nextRun(a.fixedMode, createdAt); at <= now; at = nextRun(a.fixedMode, at)) {
    const due = microsToCents(await debitsBetween(userId, null, at)) - billedCents
    assert.equal(invoicedAt.has(at.toISOString()), due > 0, `instant ${at.toISOString()}: ${due} cents due`)
    if (due > 0) billedCents += due
  }
}

test('a year of schedule: invoices on their cadences, periods tile, money reconciles', { timeout: 300_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 30, maxLength: 60 }), async (steps) => {
      // Weekly at 0.5 USD CPM: half a cent per impression, so sub-cent weeks carry over.
      const accounts = [
        await openAccount('weekly_autopay', 0.5),
        await openAccount('net30_invoice', 7.3),
        await openAccount('legacy_semimonthly_autopay', 1.25),
        await openAccount(null, 2),
      ]
      const switching = accounts[3]!
      let elapsed = 0
      for (let n = 0; elapsed < 400 * DAY_S; n++) {
        const s = steps[n % steps.length]!
        await advance(h, s.hours * 3600)
        elapsed += s.hours * 3600
        for (const [i, a] of accounts.entries()) {
          const count = s.deliveries[i] ?? 0
          if (count > 0) elapsed += 10 // deliver() moves the clock ten seconds
          if (count > 0) assert.equal(await deliver(h, a.country, count), count)
        }
        if (s.switchTo) await enroll(switching.adv, s.switchTo)
      }
      const now = h.svc.clock.now()
      for (const a of accounts) await checkAccount(a, now)
    }),
    // No shrinking: every run moves the one service's clock on by a year, so a shrunk replay is not the same schedule.
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 1), seed: Number(process.env.PROPERTY_SEED ?? 19), endOnFailure: true },
  )
})
