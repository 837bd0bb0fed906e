import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { advance, privateCountry, view, viewerAddress, type Decision } from '../helpers/serving.ts'
import { TOPIC_COUNTS_KEPT_MS, TOPIC_GROUPS, TOPICS } from '../../src/domain/topics.ts'
import { runLedgerPartitions } from '../../src/jobs/ledger-partitions.ts'

/**
 * Topic targeting (issue 40; operations.md section 2, "Topics"): the published vocabulary,
 * campaigns' target_topics, decisions' topics, stats by topic and the quote with topics.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })

test('GET /serve/v1/topics: the vocabulary with its groups, cacheable, 304 on a matching ETag', async () => {
  const res = await h.anonymous.get('/serve/v1/topics')
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /application\/json/)
  assert.equal(res.headers.get('cache-control'), 'public, max-age=3600')
  assert.deepEqual(Object.keys(res.body), ['topics'])
  const topics: Array<{ topic: string; label: string; group: string }> = res.body.topics
  assert.ok(topics.length >= 150 && topics.length <= 300)
  assert.deepEqual(topics, TOPICS.map((t) => ({ topic: t.topic, label: t.label, group: t.group })))
  const groups = new Set<string>(TOPIC_GROUPS.map((g) => g.group))
  for (const t of topics) {
    assert.match(t.topic, /^[a-z0-9-]+$/)
    assert.ok(groups.has(t.group))
  }
  const etag = res.headers.get('etag')
  assert.ok(etag)
  const again = await h.anonymous.get('/serve/v1/topics', { headers: { 'if-none-match': etag } })
  assert.equal(again.status, 304)
  assert.equal(again.text, '')
})

async function create(adv: Advertiser, overrides: Record<string, unknown>): Promise<string> {
  const res = await adv.post('/v1/campaigns', campaignBody({ impressions: 1000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  return res.body.campaign_id
}

let viewers = 0
/** One decision from a viewer of its own (and its own address), carrying `topics` when given. */
async function decideWith(country: string, topics?: unknown[]): Promise<Decision | null> {
  const viewerId = `topics-${process.pid}-${viewers++}`
  const res = await h.anonymous.post(
    '/serve/v1/decisions',
    { surface: 'extension', viewer_id: viewerId, country, ...(topics === undefined ? {} : { topics }) },
    { headers: { 'x-forwarded-for': viewerAddress(viewerId) } },
  )
  if (res.status === 204) return null
  assert.equal(res.status, 200, res.text)
  return res.body
}

/** `n` billable impressions from decisions carrying `topics` (distinct viewers, ten seconds of dwell). */
async function deliverWith(country: string, n: number, topics?: string[]): Promise<Decision[]> {
  const offers = await Promise.all(Array.from({ length: n }, () => decideWith(country, topics)))
  await advance(h, 10)
  const filled = offers.filter((o): o is Decision => o !== null)
  for (const status of await Promise.all(filled.map((o) => view(h.anonymous, o.impression_id, 10_000)))) assert.equal(status, 204)
  return filled
}

test('create: target_topics stored sorted and shown on the campaign; unknown is 400 naming it, more than ten is 400; omitted is null', async () => {
  const adv = await h.advertiser()
  // A country of its own: these campaigns must not serve in the other tests' auctions.
  const country = privateCountry()
  const id = await create(adv, { target_countries: [country], target_topics: ['pytest', 'python', 'python'] })
  const shown = await adv.get(`/v1/campaigns/${id}`)
  assert.equal(shown.status, 200)
  assert.deepEqual(shown.body.target_topics, ['pytest', 'python'])
  const listed = (await adv.get('/v1/campaigns')).body.campaigns.find((c: { campaign_id: string }) => c.campaign_id === id)
  assert.deepEqual(listed.target_topics, ['pytest', 'python'])
  const plain = await create(adv, { target_countries: [country] })
  assert.equal((await adv.get(`/v1/campaigns/${plain}`)).body.target_topics, null)

  const unknown = await adv.post('/v1/campaigns', campaignBody({ target_topics: ['python', 'cobol-85'] }))
  assert.equal(unknown.status, 400)
  assert.deepEqual(unknown.body.detail, { field: 'target_topics', reason: 'unknown_topic', topic: 'cobol-85' })
  const eleven = TOPICS.slice(0, 11).map((t) => t.topic)
  const tooMany = await adv.post('/v1/campaigns', campaignBody({ target_topics: eleven }))
  assert.equal(tooMany.status, 400)
  assert.deepEqual(tooMany.body.detail, { field: 'target_topics', reason: 'too_many_topics', max: 10 })
  const badShape = await adv.post('/v1/campaigns', campaignBody({ target_topics: 'python' }))
  assert.equal(badShape.status, 400)
  assert.equal(badShape.body.detail.field, 'target_topics')
})

test('eligibility: with topics only for decisions carrying one; without topics for all; price ranking unchanged', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, { target_countries: [country], cpm_usd: 5, ad_line: 'Python testing by Acme', target_topics: ['python', 'pytest'] })
  await create(adv, { target_countries: [country], cpm_usd: 3, ad_line: 'Generic tools by Acme' })
  await create(adv, { target_countries: [country], cpm_usd: 8, ad_line: 'Rust crates by Acme', target_topics: ['rust'] })

  assert.equal((await decideWith(country, ['python']))?.ad_line, 'Python testing by Acme')
  assert.equal((await decideWith(country, ['go', 'pytest']))?.ad_line, 'Python testing by Acme')
  // The higher bid wins when the decision carries both campaigns' topics: ranking is by price.
  assert.equal((await decideWith(country, ['python', 'rust']))?.ad_line, 'Rust crates by Acme')
  assert.equal((await decideWith(country))?.ad_line, 'Generic tools by Acme', 'no topics: only the campaign without topics')
  assert.equal((await decideWith(country, []))?.ad_line, 'Generic tools by Acme')
  assert.equal((await decideWith(country, ['go', 'java']))?.ad_line, 'Generic tools by Acme', 'other topics: only the campaign without topics')

  const lone = privateCountry()
  await create(adv, { target_countries: [lone], ad_line: 'Kubernetes only by Acme', target_topics: ['kubernetes'] })
  assert.equal(await decideWith(lone, ['docker']), null)
  assert.equal(await decideWith(lone), null)
  assert.equal((await decideWith(lone, ['kubernetes']))?.ad_line, 'Kubernetes only by Acme')
})

test('decisions: unknown topic names are dropped, never an error; only the first five known count', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  await create(adv, { target_countries: [country], ad_line: 'Terraform modules by Acme', target_topics: ['terraform'] })
  assert.equal((await decideWith(country, ['no-such-topic', 'Terraform', 'terraform']))?.ad_line, 'Terraform modules by Acme')
  assert.equal(await decideWith(country, ['no-such-topic', 'TERRAFORM']), null, 'names are exact: an unknown spelling is dropped')
  // Five known topics before it: the sixth known one does not count.
  assert.equal(await decideWith(country, ['python', 'go', 'rust', 'java', 'ruby', 'terraform']), null)
  assert.equal((await decideWith(country, ['nope-1', 'nope-2', 'python', 'go', 'rust', 'java', 'terraform']))?.ad_line, 'Terraform modules by Acme')
  // Shapes the schema refuses are still 400 (a topic is a short string).
  const bad = await h.anonymous.post('/serve/v1/decisions', { surface: 'extension', viewer_id: 'topics-bad', topics: [42] })
  assert.equal(bad.status, 400)
})

test('stats group_by=topic: billable impressions by attributed topic, under ten summed as other, none for no topic', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const campaignId = await create(adv, { target_countries: [country], impressions: 1000 })
  const start = new Date(h.svc.clock.nowMs() - 60_000).toISOString()
  assert.equal((await deliverWith(country, 12, ['python', 'pytest'])).length, 12)
  assert.equal((await deliverWith(country, 10, ['no-such-topic', 'docker'])).length, 10)
  assert.equal((await deliverWith(country, 3, ['go'])).length, 3)
  assert.equal((await deliverWith(country, 2, ['rust'])).length, 2)
  assert.equal((await deliverWith(country, 4)).length, 4)
  const end = new Date(h.svc.clock.nowMs() + 1000).toISOString()

  const res = await adv.get(`/v1/stats?${new URLSearchParams({ start, end, campaign_id: campaignId, group_by: 'topic' })}`)
  assert.equal(res.status, 200, res.text)
  assert.deepEqual(res.body.topics, [
    { topic: 'python', billable_impressions: 12 },
    { topic: 'docker', billable_impressions: 10 },
    { topic: 'other', billable_impressions: 5 },
    { topic: 'none', billable_impressions: 4 },
  ])
  assert.equal(res.body.totals.billable_impressions, 31)
  assert.ok(!res.text.includes('"go"') && !res.text.includes('"rust"'), 'a topic under ten is never named')

  const plain = await adv.get(`/v1/stats?${new URLSearchParams({ start, end, campaign_id: campaignId })}`)
  assert.equal(plain.body.topics, undefined, 'only with group_by=topic')
  const without = await adv.get(`/v1/stats?${new URLSearchParams({ start, end, group_by: 'topic' })}`)
  assert.equal(without.status, 400)
  assert.deepEqual(without.body.detail, { field: 'campaign_id', reason: 'required_with_group_by_topic' })
})

test('quote with target_topics: the share of recent decisions carrying them; the rank counts only campaigns that can meet the bid', async () => {
  const [adv, quoter] = [await h.advertiser(), await h.advertiser()]
  const country = privateCountry()
  await create(adv, { target_countries: [country], cpm_usd: 4, impressions: 2000, target_topics: ['python'] })
  await create(adv, { target_countries: [country], cpm_usd: 3, impressions: 1000 })
  await decideWith(country, ['python'])
  await decideWith(country, ['python', 'django'])
  await decideWith(country, ['kubernetes'])
  await decideWith(country)
  await h.svc.service.serving.topics.flush()

  const quote = (params: Record<string, string>) => quoter.get(`/v1/auction/quote?${new URLSearchParams({ cpm_usd: '2', target_countries: country, ...params })}`)
  const rust = await quote({ target_topics: 'rust' })
  assert.equal(rust.status, 200, rust.text)
  assert.equal(rust.body.rank, 2, 'the python campaign never meets a rust bid; the one without topics does')
  assert.deepEqual(rust.body.based_on.topics, ['rust'])
  const python = await quote({ target_topics: 'python,django' })
  assert.equal(python.body.rank, 3)
  assert.deepEqual(python.body.based_on.topics, ['django', 'python'])
  assert.equal((await quote({})).body.rank, 3)
  assert.equal((await quote({})).body.based_on.topic_share, null)

  // The share, from the counts in the store over the last hour (other tests' decisions count too: one service).
  const db = h.svc.service.store.db
  const since = new Date(h.svc.clock.nowMs() - 3_600_000)
  const counts = await db.selectFrom('topic_decision_counts').select(['topic', 'decisions']).where('minute', '>=', since).execute()
  const sum = (topic: string) => counts.filter((c) => c.topic === topic).reduce((n, c) => n + Number(c.decisions), 0)
  const all = sum('')
  assert.ok(all >= 4 && sum('python') >= 2 && sum('kubernetes') >= 1)
  const expected = 1 - (1 - sum('python') / all) * (1 - sum('django') / all)
  assert.equal(python.body.based_on.decisions_counted, all)
  assert.equal(python.body.based_on.topic_share, Math.round(expected * 10_000) / 10_000)
  assert.ok(python.body.based_on.topic_share > 0 && python.body.based_on.topic_share < 1)

  const unknown = await quote({ target_topics: 'python,cobol-85' })
  assert.equal(unknown.status, 400)
  assert.deepEqual(unknown.body.detail, { field: 'target_topics', reason: 'unknown_topic', topic: 'cobol-85' })
})

test('decisions counted by topic are kept a week: the ledger-partitions job deletes older minutes', async () => {
  const db = h.svc.service.store.db
  const nowMs = h.svc.clock.nowMs()
  const old = new Date(nowMs - TOPIC_COUNTS_KEPT_MS - 60_000)
  await db.insertInto('topic_decision_counts').values({ minute: old, topic: 'python', decisions: 3 }).execute()
  const result = await runLedgerPartitions(db, new Date(nowMs), 400)
  assert.ok((result.topic_counts_deleted as number) >= 1)
  const left = await db.selectFrom('topic_decision_counts').select('minute').where('minute', '<', new Date(nowMs - TOPIC_COUNTS_KEPT_MS)).execute()
  assert.equal(left.length, 0)
})
