import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../helpers/api.ts'
import { auditEntries } from '../helpers/ops.ts'
import { advance, decide, privateCountry, type Decision } from '../helpers/serving.ts'

/**
 * Traffic quality through the operator API (docs/invalid-traffic.md): a UTC day's sources and
 * viewers ranked by the review's score, made with real serving traffic from chosen addresses
 * (TRUST_PROXY is 1 in tests, so X-Forwarded-For names the source); the block list, its
 * validation and its audit entries; and a block that applies to the very next view.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

// The manual clock starts Monday 2026-11-02 09:00 UTC.
const DAY = '2026-11-02'
const BOT = '192.0.2.66'
const OFFICE = '203.0.113.7'
const CPM_MICROS = 2_500

let advertiser: Advertiser
let country: string
let campaignId: string

async function campaign(): Promise<void> {
  if (advertiser) return
  advertiser = await h.advertiser()
  country = privateCountry()
  const res = await advertiser.post('/v1/campaigns', campaignBody({ target_countries: [country], cpm_usd: 2.5, impressions: 5000 }))
  assert.equal(res.status, 201, res.text)
  campaignId = res.body.campaign_id
}

/** Decisions for each viewer from `address`, the clock moved `seconds`, then a view of each with its dwell. */
async function round(address: string, viewers: string[], seconds: number, dwellOf: (i: number) => number, topics?: string[]): Promise<Decision[]> {
  const offers: Decision[] = []
  for (const viewer of viewers) {
    const offer = await decide(h.anonymous, { country, viewer_id: viewer, ...(topics ? { topics } : {}) }, address)
    assert.ok(offer, `no ad for ${viewer}`)
    offers.push(offer)
  }
  await advance(h, seconds)
  for (const [i, offer] of offers.entries()) {
    const res = await h.anonymous.post(`/serve/v1/impressions/${offer.impression_id}/view`, { dwell_ms: dwellOf(i) }, { headers: { 'x-forwarded-for': address } })
    assert.equal(res.status, 204, res.text)
  }
  return offers
}

const judge = async (query = `day=${DAY}`) => {
  const res = await h.admin.get(`/admin/v1/traffic?${query}`)
  assert.equal(res.status, 200, res.text)
  return res.body
}

test('a day ranked by score: a bot source (dwell 9.6 s, every report 10 s after its decision) is first and invalid; an office of honest viewers is valid', async () => {
  await campaign()
  // The office: 40 people behind one address, three rounds some seconds apart, varied dwell, a few clicks (about 3 %),
  // topics on every decision (what the real clients send).
  const people = Array.from({ length: 40 }, (_, i) => `office-${i}`)
  let clicks = 0
  for (const [r, seconds] of [11, 14.5, 23].entries()) {
    const offers = await round(OFFICE, people, seconds, (i) => Math.min(seconds * 1000, 9_800 + ((i * 379 + r * 1_013) % 13_000)), ['python'])
    for (const [i, offer] of offers.entries()) {
      if ((i + r) % 30 !== 0) continue
      const click = await h.anonymous.get(`/serve/v1/impressions/${offer.impression_id}/click`, { headers: { 'x-forwarded-for': OFFICE } })
      assert.equal(click.status, 302)
      clicks++
    }
  }
  // The bot: 25 viewer ids, one round.
  await round(
    BOT,
    Array.from({ length: 25 }, (_, i) => `bot-${i}`),
    10,
    () => 9_600,
  )

  const day = await judge()
  assert.equal(day.day, DAY)
  const [first] = day.sources
  assert.equal(first.source, BOT)
  assert.deepEqual(first.signals, ['dwell_at_threshold', 'regular_intervals'])
  assert.equal(first.score, 60)
  assert.equal(first.invalid, true)
  assert.deepEqual(
    [first.views, first.impressions, first.billable, first.viewers, first.dwell_at_threshold, first.clicks, first.debit_micros],
    [25, 25, 25, 25, 25, 0, 25 * CPM_MICROS],
  )
  assert.deepEqual(first.offer_age, { count: 25, mean_ms: 10_000, stddev_ms: 0 })

  const office = day.sources.find((s: any) => s.source === OFFICE)
  assert.ok(office, 'the office is listed')
  // Three rounds within a minute and never a short view: no pause, no short view; with many viewers still under 60.
  assert.deepEqual(office.signals, ['many_viewers', 'no_pauses', 'no_short_views'])
  assert.equal(office.score, 55)
  assert.equal(office.invalid, false)
  assert.deepEqual([office.views, office.billable, office.viewers, office.clicks, office.invalid_views], [120, 120, 40, clicks, 0])
  assert.ok(office.offer_age.stddev_ms > 250, `irregular: ${office.offer_age.stddev_ms}`)
  assert.ok(day.sources.findIndex((s: any) => s.source === OFFICE) > 0)

  // Viewers: 65 of them, each with a view or three; none is invalid.
  assert.equal(day.totals.viewers, 65)
  assert.equal(day.totals.sources, day.sources.length)
  assert.ok(day.viewers.every((v: any) => !v.invalid && /^[A-Za-z0-9_-]+$/.test(v.viewer_key)))
  assert.deepEqual([day.review, day.credits], [null, []])

  // Without a day: yesterday on the service clock, which had no traffic.
  const yesterday = await judge('')
  assert.deepEqual([yesterday.day, yesterday.sources, yesterday.viewers, yesterday.totals], ['2026-11-01', [], [], { sources: 0, viewers: 0 }])

  for (const bad of ['2026-02-30', '2026-11-2', 'yesterday', '0000-01-01']) {
    const res = await h.admin.get(`/admin/v1/traffic?day=${bad}`)
    assert.equal(res.status, 400, `${bad}: ${res.text}`)
    assert.deepEqual([res.body.detail.field, res.body.detail.reason], ['day', 'invalid_format'], bad)
  }
  assert.equal((await h.admin.get(`/admin/v1/traffic?day=${DAY}&limit=5`)).status, 400)
})

test('the block list: add (canonical text, 200 when already listed), list newest first, remove; refused values name the field and write no audit entry', async () => {
  const before = (await auditEntries(h, { limit: '1' }))[0]?.entry_id ?? 0
  const refused: [unknown, string, string][] = [
    [{ kind: 'cidr', value: '198.18.7.1/24' }, 'value', 'host_bits_set'],
    [{ kind: 'cidr', value: '2001:db8:1:2::/96' }, 'value', 'prefix_too_long'],
    [{ kind: 'cidr', value: '0.0.0.0/0' }, 'value', 'prefix_too_short'],
    [{ kind: 'cidr', value: 'not-an-address' }, 'value', 'invalid_format'],
    [{ kind: 'cidr', value: '198.18.7.0/33' }, 'value', 'invalid_format'],
    [{ kind: 'viewer', value: 'has spaces' }, 'value', 'invalid_format'],
    [{ kind: 'viewer', value: 'x'.repeat(129) }, 'value', 'too_long'],
    [{ kind: 'viewer', value: '' }, 'value', 'too_short'],
    [{ kind: 'range', value: '198.18.7.0/24' }, 'kind', 'invalid_value'],
    [{ kind: 'cidr' }, 'value', 'required'],
    [{ kind: 'cidr', value: '198.18.7.0/24', note: 'x'.repeat(501) }, 'note', 'too_long'],
    [{ kind: 'cidr', value: '198.18.7.0/24', extra: true }, 'extra', 'unknown_field'],
  ]
  for (const [body, field, reason] of refused) {
    const res = await h.admin.post('/admin/v1/traffic/blocks', body)
    assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${res.text}`)
    assert.deepEqual([res.body.detail.field, res.body.detail.reason], [field, reason], JSON.stringify(body).slice(0, 80))
  }
  assert.equal((await auditEntries(h, { limit: '1' }))[0]?.entry_id ?? 0, before, 'a refusal writes no audit entry')

  const range = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'cidr', value: ' 198.18.7.0/24 ', note: 'scraper farm' })
  assert.equal(range.status, 201, range.text)
  assert.match(range.body.block_id, /^tfb_/)
  assert.deepEqual([range.body.kind, range.body.value, range.body.note, range.body.created_by], ['cidr', '198.18.7.0/24', 'scraper farm', 'token'])
  const again = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'cidr', value: '198.18.7.0/24' })
  assert.equal(again.status, 200)
  assert.deepEqual(again.body, range.body, 'the entry already listed, as it was')
  // A bare address is its /32, or its /64 in IPv6; IPv6 is written back compressed.
  // A second apart each, so that newest first (by created_at) is one order.
  await advance(h, 1)
  const host = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'cidr', value: '198.18.9.4' })
  await advance(h, 1)
  const six = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'cidr', value: '2001:0DB8:0001:0002:0:0:0:9' })
  await advance(h, 1)
  const viewer = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'viewer', value: 'Viewer_Key-1' })
  assert.deepEqual([host.status, six.status, viewer.status], [201, 201, 201])
  assert.deepEqual([host.body.value, six.body.value, viewer.body.value], ['198.18.9.4/32', '2001:db8:1:2::/64', 'Viewer_Key-1'])

  const listed = (await h.admin.get('/admin/v1/traffic/blocks')).body.blocks.map((b: any) => b.block_id)
  const mine = [viewer.body.block_id, six.body.block_id, host.body.block_id, range.body.block_id]
  assert.deepEqual(
    listed.filter((id: string) => mine.includes(id)),
    mine,
    'newest first',
  )

  const removed = await h.admin.delete(`/admin/v1/traffic/blocks/${range.body.block_id}`)
  assert.equal(removed.status, 200)
  assert.deepEqual(removed.body, range.body)
  assert.equal((await h.admin.delete(`/admin/v1/traffic/blocks/${range.body.block_id}`)).status, 404)
  assert.ok(!(await h.admin.get('/admin/v1/traffic/blocks')).body.blocks.some((b: any) => b.block_id === range.body.block_id))
  for (const b of [host, six, viewer]) assert.equal((await h.admin.delete(`/admin/v1/traffic/blocks/${b.body.block_id}`)).status, 200)

  // One entry per change, by the token, with the entry before and after.
  const [added] = await auditEntries(h, { action: 'traffic_block.add', target_id: range.body.block_id })
  const adds = await auditEntries(h, { action: 'traffic_block.add', target_id: range.body.block_id })
  assert.equal(adds.length, 2, 'the add and the add of an entry already listed')
  assert.deepEqual([added.actor.kind, added.target.kind, added.before, added.after.value, added.after.created], ['token', 'traffic_block', null, '198.18.7.0/24', false])
  assert.equal(adds[1].after.created, true)
  const [gone] = await auditEntries(h, { action: 'traffic_block.remove', target_id: range.body.block_id })
  assert.deepEqual([gone.before.value, gone.before.note, gone.after], ['198.18.7.0/24', 'scraper farm', null])
})

/** Non-billable views for invalid traffic of the campaign so far today, as its advertiser reads them. */
async function invalidTrafficToday(): Promise<number> {
  const res = await advertiser.get(`/v1/stats?start=${DAY}T00:00:00Z&end=2026-11-03T00:00:00Z&granularity=hour&campaign_id=${campaignId}`)
  assert.equal(res.status, 200, res.text)
  return res.body.totals.non_billable.invalid_traffic
}

test('a blocked range makes the next view from it non-billable (invalid_traffic) at once; removed, the source bills again; the day shows it blocked', async () => {
  await campaign()
  const source = '100.64.12.34'
  const invalidBefore = await invalidTrafficToday()
  const block = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'cidr', value: '100.64.12.0/24', note: 'test range' })
  assert.equal(block.status, 201, block.text)

  const [offer] = await round(source, ['blocked-viewer'], 11, () => 10_000)
  assert.equal(await invalidTrafficToday(), invalidBefore + 1, 'the view right after the block is invalid_traffic')
  const day = await judge()
  const listed = day.sources.find((s: any) => s.source === source)
  assert.deepEqual([listed.signals, listed.score, listed.invalid, listed.billable, listed.invalid_views], [['blocked'], 100, true, 0, 1])
  assert.equal(day.sources[0].source, source, 'blocked ranks first')
  assert.ok(offer)

  assert.equal((await h.admin.delete(`/admin/v1/traffic/blocks/${block.body.block_id}`)).status, 200)
  await round(source, ['blocked-viewer'], 11, () => 10_000)
  assert.equal(await invalidTrafficToday(), invalidBefore + 1, 'unblocked: the next view bills')
  const after = (await judge()).sources.find((s: any) => s.source === source)
  assert.deepEqual([after.signals, after.billable, after.invalid], [[], 1, false])
})

test('a blocked range also holds an address written with a port, with leading zeros, or carried in 6to4, NAT64 or Teredo', async () => {
  await campaign()
  const invalidBefore = await invalidTrafficToday()
  const block = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'cidr', value: '100.64.40.0/24', note: 'spellings' })
  assert.equal(block.status, 201, block.text)
  // 100.64.40.7 is 6440:2807; Teredo carries it inverted, 9bbf:d7f8.
  const spellings = ['100.64.40.7:1234', '100.064.040.007', '[::ffff:100.64.40.7]:443', '2002:6440:2807::1', '64:ff9b::100.64.40.7', '2001:0:4136:e378:8000:63bf:9bbf:d7f8']
  for (const [i, address] of spellings.entries()) await round(address, [`spelled-viewer-${i}`], 11, () => 10_000)
  assert.equal(await invalidTrafficToday(), invalidBefore + spellings.length, 'every view is invalid_traffic')
  const listed = (await judge()).sources.filter((s: any) => s.source.startsWith('100.64.40.'))
  assert.deepEqual(listed.map((s: any) => [s.source, s.invalid_views, s.billable]), [['100.64.40.7', spellings.length, 0]], 'one source, blocked')
  assert.equal((await h.admin.delete(`/admin/v1/traffic/blocks/${block.body.block_id}`)).status, 200)
})

test('a blocked viewer key bills nothing from any source, and scores 100 on the day', async () => {
  await campaign()
  const [offer] = await round('100.64.20.1', ['listed-viewer'], 11, () => 10_000)
  assert.ok(offer)
  const day = await judge()
  // The viewer's key as the day lists it: the one viewer of that source.
  const known = new Set(day.viewers.map((v: any) => v.viewer_key))
  assert.equal(known.size, day.viewers.length)
  const again = await round('100.64.20.2', ['other-viewer'], 11, () => 10_000)
  assert.ok(again.length === 1)
  const newKeys = (await judge()).viewers.map((v: any) => v.viewer_key).filter((k: string) => !known.has(k))
  assert.equal(newKeys.length, 1)
  const key: string = newKeys[0]

  const invalidBefore = await invalidTrafficToday()
  const block = await h.admin.post('/admin/v1/traffic/blocks', { kind: 'viewer', value: key, note: 'automation' })
  assert.equal(block.status, 201, block.text)
  await round('100.64.20.3', ['other-viewer'], 11, () => 10_000)
  assert.equal(await invalidTrafficToday(), invalidBefore + 1)
  const listed = (await judge()).viewers.find((v: any) => v.viewer_key === key)
  assert.deepEqual([listed.signals, listed.score, listed.invalid, listed.views, listed.billable, listed.sources], [['blocked'], 100, true, 2, 1, 2])
  assert.equal((await h.admin.delete(`/admin/v1/traffic/blocks/${block.body.block_id}`)).status, 200)
})

test("a reviewed day shows the review's record and its credits per campaign, largest first, with the account's email", async () => {
  await campaign()
  const other = await h.advertiser()
  const otherCampaign = (await other.post('/v1/campaigns', campaignBody({ name: 'Other campaign' }))).body.campaign_id
  // What the daily review (another part of issue 32) writes for a day: its record and the credits it issued.
  const db = h.svc.service.store.db
  const reviewed = '2026-10-30'
  await db
    .insertInto('traffic_reviews')
    .values({ day: reviewed, reviewed_at: new Date('2026-10-31T01:00:00Z'), sources_flagged: 2, viewers_flagged: 1, units_voided: 7, credited_micros: 17_500 })
    .execute()
  await db
    .insertInto('traffic_credits')
    .values([
      { day: reviewed, user_id: advertiser.userId, campaign_id: campaignId, units: 3, micros: 7_500 },
      { day: reviewed, user_id: other.userId, campaign_id: otherCampaign, units: 4, micros: 10_000 },
    ])
    .execute()

  const day = await judge(`day=${reviewed}`)
  assert.deepEqual(day.review, { reviewed_at: '2026-10-31T01:00:00.000Z', sources_flagged: 2, viewers_flagged: 1, units_voided: 7, credited_micros: 17_500 })
  const email = async (adv: Advertiser) => (await h.admin.get(`/admin/v1/accounts/${adv.userId}`)).body.email
  assert.deepEqual(day.credits, [
    { user_id: other.userId, email: await email(other), campaign_id: otherCampaign, campaign_name: 'Other campaign', units: 4, micros: 10_000 },
    { user_id: advertiser.userId, email: await email(advertiser), campaign_id: campaignId, campaign_name: (await advertiser.get(`/v1/campaigns/${campaignId}`)).body.name, units: 3, micros: 7_500 },
  ])
  assert.deepEqual([day.sources, day.viewers], [[], []])
})
