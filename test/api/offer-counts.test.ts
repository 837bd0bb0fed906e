import assert from 'node:assert/strict'
import { test } from 'node:test'
import { sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely'
import pino from 'pino'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { decide, offersWritten, privateCountry } from '../helpers/serving.ts'
import { ServingEngine } from '../../src/serving/engine.ts'
import { ViewerKeys } from '../../src/serving/viewer-keys.ts'

// Issue 33: a decision touches no store. Offers are counted in memory and added to `offer_counts`
// (one row per minute, creative, surface and country) by the flush; the serving state is pushed.

const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

async function create(adv: Advertiser, country: string, overrides: Record<string, unknown> = {}): Promise<{ campaignId: string }> {
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return { campaignId: res.body.campaign_id }
}

/** Counts the statements a Kysely instance runs (an observer: the queries still go to the real store). */
class StatementCount implements KyselyPlugin {
  n = 0
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.n++
    return args.node
  }
  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result)
  }
}

test('decisions are counted per minute, creative, surface and country, and reach offer_counts with the flush; the ledger gets no row', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const { campaignId } = await create(adv, country, { target_surface: 'extension' })
  const terminal = await create(adv, country, { target_surface: 'terminal' })
  const db = h.svc.service.store.db
  for (let i = 0; i < 5; i++) assert.ok(await decide(h.anonymous, { country, surface: 'extension', viewer_id: `oc-a-${i}` }))
  for (let i = 0; i < 3; i++) assert.ok(await decide(h.anonymous, { country, surface: 'terminal', viewer_id: `oc-b-${i}` }))
  const ledger = await db.selectFrom('ledger_events').select(sql<number>`count(*)::int`.as('n')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
  assert.equal(ledger.n, 0, 'a decision writes no ledger row')
  await offersWritten(h)
  const counts = await db
    .selectFrom('offer_counts')
    .select(['surface', 'country', 'offers', 'minute'])
    .where('campaign_id', 'in', [campaignId, terminal.campaignId])
    .orderBy('surface')
    .execute()
  assert.deepEqual(
    counts.map((c) => [c.surface, c.country, Number(c.offers)]),
    [
      ['extension', country, 5],
      ['terminal', country, 3],
    ],
  )
  for (const c of counts) assert.equal(c.minute.getTime() % 60_000, 0, 'keyed by the UTC minute')
  // A second flush adds to the same keys.
  assert.ok(await decide(h.anonymous, { country, surface: 'extension', viewer_id: 'oc-a-9' }))
  await offersWritten(h)
  const again = await db.selectFrom('offer_counts').select(sql<number>`sum(offers)::int`.as('n')).where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
  assert.equal(again.n, 6)
  // The events metric counts them.
  const hour = Math.floor(h.svc.service.clock.nowMs() / 3_600_000) * 3_600_000
  const window = `start=${new Date(hour).toISOString()}&end=${new Date(hour + 3_600_000).toISOString()}`
  const stats = await adv.get(`/v1/stats?campaign_id=${campaignId}&${window}`)
  assert.equal(stats.status, 200, stats.text)
  assert.equal(stats.body.totals.events, 6)
})

test('a decision on fresh serving state runs no statement; a pushed change reloads once, and serves by it', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const { campaignId } = await create(adv, country, { ad_line: 'Counted line one' })
  const svc = h.svc.service
  const count = new StatementCount()
  const log = pino({ level: 'silent' })
  const engine = await ServingEngine.create(svc.store.db.withPlugin(count), svc.clock, log, null, null, (l) => svc.store.onServingEpoch(l))
  const viewers = new ViewerKeys(Buffer.alloc(32, 7))
  const request = (i: number) => ({ surface: 'extension' as const, country, viewerKey: viewers.of(`push-${i}`), source: `10.0.0.${i % 250}` })
  try {
    assert.equal((await engine.decide(request(0)))?.winner.campaignId, campaignId, 'the first decision loads the state')
    const loaded = count.n
    assert.ok(loaded > 0)
    for (let i = 1; i <= 20; i++) assert.ok(await engine.decide(request(i)))
    assert.equal(count.n, loaded, 'twenty decisions within the second ran no statement')
    // A change committed on this store is pushed: the next decision reloads (an epoch read and the candidates) and serves by it.
    assert.equal((await adv.post(`/v1/campaigns/${campaignId}/pause`)).status, 200)
    assert.equal(await engine.decide(request(21)), null, 'the paused campaign no longer serves')
    assert.ok(count.n > loaded, 'it reloaded')
    const reloaded = count.n
    assert.equal(await engine.decide(request(22)), null)
    assert.equal(count.n, reloaded, 'and then reads nothing again')
  } finally {
    await engine.close()
  }
})
