import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { sql } from 'kysely'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, deliver, privateCountry } from '../helpers/serving.ts'
import { microsToCents } from '../../src/domain/money.ts'
import { withLeaseUse } from '../../src/store/lease-use.ts'
import { verifyRange } from '../helpers/ledger.ts'

/**
 * Random schedules of deliveries, pauses, cancels, credits, card failures and
 * clock jumps across months, driven through the real HTTP API on a real
 * store. After every schedule the money must reconcile to the micro-dollar.
 */
const h = useService({}, { create_rate_limit_per_min: 10_000, read_rate_limit_per_min: 10_000, outstanding_balance_cap_usd: null })

type Action =
  | { kind: 'create'; cpmMilli: number; blocks: number }
  | { kind: 'deliver'; n: number }
  | { kind: 'pause' | 'resume' | 'cancel'; which: number }
  | { kind: 'credit'; cents: number }
  | { kind: 'card'; working: boolean }
  | { kind: 'advance'; hours: number }

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('create' as const), cpmMilli: fc.integer({ min: 500, max: 20_000 }), blocks: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('deliver' as const), n: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('pause' as const, 'resume' as const, 'cancel' as const), which: fc.nat(5) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('credit' as const), cents: fc.integer({ min: 1, max: 300 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('card' as const), working: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 24 * 9 }) }) },
)

async function run(adv: Advertiser, country: string, actions: Action[]): Promise<void> {
  const campaigns: string[] = []
  for (const a of actions) {
    switch (a.kind) {
      case 'create': {
        const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], cpm_usd: a.cpmMilli / 1000, impressions: a.blocks * 1000 }))
        // 402 while payment has failed is a legitimate answer.
        assert.ok(res.status === 201 || res.status === 402, res.text)
        if (res.status === 201) campaigns.push(res.body.campaign_id)
        break
      }
      case 'deliver':
        await deliver(h, country, a.n)
        break
      case 'pause':
      case 'resume':
      case 'cancel': {
        const id = campaigns[a.which % Math.max(1, campaigns.length)]
        if (!id) break
        const res = a.kind === 'cancel' ? await adv.delete(`/v1/campaigns/${id}`) : await adv.post(`/v1/campaigns/${id}/${a.kind}`)
        assert.ok([200, 402, 409].includes(res.status), res.text)
        break
      }
      case 'credit':
        assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/credits`, { amount_cents: a.cents, memo: 'property' })).status, 201)
        break
      case 'card': {
        const card = a.working ? '4242424242424242' : '4000000000000341'
        assert.equal((await h.admin.post(`/admin/v1/accounts/${adv.userId}/billing`, { mode: 'weekly_autopay', card_number: card })).status, 200)
        break
      }
      case 'advance':
        await advance(h, a.hours * 3600)
        break
    }
  }
}

async function checkInvariants(adv: Advertiser): Promise<void> {
  const db = h.svc.service.store.db
  const account = (await adv.get('/v1/account')).body
  const b = account.balance
  const ledger = await db
    .selectFrom('ledger_events')
    .select([sql<string>`coalesce(sum(debit_micros), 0)`.as('debits'), sql<string>`count(*)`.as('n')])
    .where('user_id', '=', adv.userId)
    .where('event_type', '=', 'impression')
    .executeTakeFirstOrThrow()
  // Delivered: settled plus unsettled impression-lease use.
  const campaigns = await withLeaseUse(
    db,
    await db.selectFrom('campaigns').select(['campaign_id', 'impressions', 'impressions_billed', 'lifetime_spent_micros']).where('user_id', '=', adv.userId).execute(),
  )
  const invoices = await db.selectFrom('invoices').selectAll().where('user_id', '=', adv.userId).execute()
  const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)

  // Σ ledger debits = Σ lifetime_spent_micros = Σ invoiced + unbilled
  const debits = Number(ledger.debits)
  assert.equal(sum(campaigns.map((c) => c.lifetime_spent_micros)), debits)
  assert.equal(sum(invoices.map((i) => i.delivered_micros)) + b.unbilled_delivered_micros, debits)

  // No undelivered impression billed; blocks agree with the ledger.
  assert.equal(sum(campaigns.map((c) => c.impressions_billed)), Number(ledger.n))
  for (const c of campaigns) assert.ok(c.impressions_billed <= c.impressions)
  const listed = (await adv.get('/v1/campaigns')).body.campaigns as {
    impressions_served: number
    blocks: { status: string; impressions_served: number; impressions_target: number }[]
  }[]
  assert.equal(sum(listed.flatMap((c) => c.blocks.map((bl) => bl.impressions_served))), Number(ledger.n))
  for (const c of listed) {
    assert.equal(sum(c.blocks.map((bl) => bl.impressions_served)), c.impressions_served)
    for (const bl of c.blocks) assert.equal(bl.status === 'exhausted', bl.impressions_served === bl.impressions_target)
  }

  // Rounding never drifts; owed matches its formula.
  assert.equal(sum(invoices.map((i) => i.amount_cents)), microsToCents(sum(invoices.map((i) => i.delivered_micros))))
  assert.equal(b.pending_cents, microsToCents(debits) - b.invoiced_cents)
  const unpaid = sum(invoices.filter((i) => i.status === 'open' || i.status === 'payment_failed').map((i) => i.total_cents))
  assert.equal(b.owed_cents, b.pending_cents + unpaid - b.credits_cents)
  assert.equal(account.outstanding_cents, b.pending_cents)
  assert.equal(b.paid_cents + unpaid + b.voided_cents, sum(invoices.map((i) => i.total_cents)))

  // One invoice per period, each on a scheduled run.
  const periods = invoices.map((i) => i.period_end.toISOString())
  assert.equal(new Set(periods).size, periods.length)
  for (const i of invoices) {
    assert.equal(i.period_end.getUTCDay(), 1, 'weekly periods end on a Monday')
    assert.equal(i.period_end.getUTCHours(), 6)
  }
  // Collection follows the charges.
  const failed = invoices.some((i) => i.status === 'payment_failed')
  assert.equal(account.billing_profile.collection_status, failed ? 'payment_failed' : 'ready')
}

test('money reconciles to the micro-dollar under random schedules', { timeout: 600_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(action, { minLength: 6, maxLength: 24 }), fc.boolean(), async (actions, workingCard) => {
      const adv = await h.advertiser({ billing: workingCard ? 'card' : 'failing_card' })
      const from = h.svc.clock.now().toISOString().slice(0, 10)
      await run(adv, privateCountry(), actions)
      // Close the schedule with a full billing cycle so invoices exist to check.
      await advance(h, 8 * 24 * 3600)
      await checkInvariants(adv)
      // The verifiable ledger (issue 39): every closed day of the schedule verifies, invoices included.
      const to = new Date(h.svc.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10)
      const verified = await verifyRange({ baseUrl: h.baseUrl, userId: adv.userId, apiKey: adv.apiKey, headers: { 'x-forwarded-for': adv.ip }, pollMs: 10 }, from, to)
      assert.ok(verified.verified, JSON.stringify(verified))
    }),
    { numRuns: Number(process.env.PROPERTY_RUNS ?? 25), seed: process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : undefined },
  )
})
