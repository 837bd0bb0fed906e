import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { attribute, fieldErrors } from '../helpers/html.ts'
import { auditEntries, OPERATOR, signedInOperator } from '../helpers/ops.ts'
import { advance, decide, privateCountry, type Decision } from '../helpers/serving.ts'

/**
 * /ops/traffic over real HTTP without JavaScript: a day's sources and viewers by score, "Block" on
 * a row, the add form's refusals next to its fields, "Remove", CSRF; the same use cases as the
 * operator API, audited as the operator.
 */
const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

// The manual clock starts Monday 2026-11-02 09:00 UTC.
const DAY = '2026-11-02'
const BOT = '192.0.2.77'

/** The `f-value` input of the add form, as rendered. */
const addFormValue = (html: string) => attribute(/<input\b[^>]*\bid="f-value"[^>]*>/.exec(html)?.[0] ?? '', 'value')

test('the day ranked by score with a Block button per row; Block and Remove change the block list, audited as the operator; refusals stand next to the field', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  assert.equal((await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], impressions: 1000 }))).status, 201)
  const offers: Decision[] = []
  for (let i = 0; i < 20; i++) offers.push((await decide(h.anonymous, { country, viewer_id: `console-bot-${i}` }, BOT))!)
  await advance(h, 10)
  for (const o of offers) assert.equal((await h.anonymous.post(`/serve/v1/impressions/${o.impression_id}/view`, { dwell_ms: 9_600 }, { headers: { 'x-forwarded-for': BOT } })).status, 204)

  const ops = await signedInOperator(h)
  const page = await ops.get(`/ops/traffic?day=${DAY}`)
  assert.equal(page.status, 200, page.words.slice(0, 300))
  assert.match(page.words, /Traffic quality/)
  assert.match(page.words, new RegExp(`Sources 1 source \\(IPv4 addresses and IPv6 /64s\\) had views or clicks on ${DAY}; 1 invalid\\.`))
  assert.match(page.words, new RegExp(`${BOT.replaceAll('.', '\\.')} 60 invalid dwell just past the bar \\(9\\.5-9\\.7 s\\); reports at regular intervals 20 20 0 0 \\$0\\.05 20 Block`))
  assert.match(page.words, /The daily review has not run for 2026-11-02: no credits yet\./)
  assert.ok(page.text.includes(`aria-label="Block source ${BOT}"`))
  assert.match(page.text, /<a href="\/ops\/traffic" aria-current="page">Traffic quality<\/a>/)

  // Without a day: yesterday (UTC, service clock) in the picker; a day that is no day is refused at the field.
  assert.equal(attribute(/<input\b[^>]*\bname="day"[^>]*>/.exec((await ops.get('/ops/traffic')).text)![0], 'value'), '2026-11-01')
  const noDay = await ops.get('/ops/traffic?day=2026-02-30')
  assert.equal(noDay.status, 400)
  assert.equal(fieldErrors(noDay.text).day, 'Enter a day like 2026-11-02.')

  // "Block" on the bot's row.
  const blocked = await ops.post('/ops/traffic/blocks', { kind: 'cidr', value: BOT, note: `Score 60 on ${DAY}`, day: DAY }, page)
  assert.equal(blocked.status, 303)
  assert.equal(blocked.location, `/ops/traffic?day=${DAY}&notice=blocked`)
  const after = await ops.get(blocked.location!)
  assert.match(after.words, /Blocked: from the next view, its views and clicks do not bill\./)
  assert.match(after.words, /100 invalid on the block list; dwell just past the bar \(9\.5-9\.7 s\); reports at regular intervals 20 20 0 0 \$0\.05 20 blocked Viewers/)
  assert.match(after.words, new RegExp(`Address range ${BOT.replaceAll('.', '\\.')}/32 Score 60 on ${DAY} .* by ${OPERATOR.email.replaceAll('.', '\\.')} Remove`))
  const [entry] = (await h.admin.get('/admin/v1/traffic/blocks')).body.blocks
  assert.equal(entry.value, `${BOT}/32`)
  assert.match(entry.created_by, /^opr_/)
  const [added] = await auditEntries(h, { action: 'traffic_block.add', target_id: entry.block_id })
  assert.deepEqual([added.actor.email, added.after.value, added.after.created], [OPERATOR.email, `${BOT}/32`, true])
  const again = await ops.post('/ops/traffic/blocks', { kind: 'cidr', value: `${BOT}/32`, day: DAY }, after)
  assert.equal(again.location, `/ops/traffic?day=${DAY}&notice=already_blocked`)

  // The add form: refusals next to the field, what was typed kept.
  const refusals: [Record<string, string>, string, RegExp][] = [
    [{ kind: 'cidr', value: '2001:db8::/96' }, 'value', /at most \/64/],
    [{ kind: 'cidr', value: '10.1.2.3/8' }, 'value', /network address/],
    [{ kind: 'cidr', value: 'nowhere' }, 'value', /203\.0\.113\.0\/24/],
    [{ kind: 'viewer', value: 'not a key' }, 'value', /viewer key/],
    [{ kind: 'range', value: '10.0.0.0/8' }, 'kind', /Choose one of: cidr, viewer\./],
    [{ kind: 'cidr', value: '10.0.0.0/8', note: 'x'.repeat(501) }, 'note', /at most 500 characters/],
  ]
  for (const [fields, field, message] of refusals) {
    const res = await ops.post('/ops/traffic/blocks', { ...fields, day: DAY }, after)
    assert.equal(res.status, 400, JSON.stringify(fields).slice(0, 80))
    assert.match(fieldErrors(res.text)[field] ?? '', message, JSON.stringify(fields).slice(0, 80))
    assert.equal(addFormValue(res.text), fields.value)
    assert.match(res.words, /Sources/, 'the day is still shown')
  }
  assert.equal((await auditEntries(h, { action: 'traffic_block.add' })).length, 2, 'refusals write no entry')

  // Without the CSRF token: refused, nothing added.
  const forged = await ops.post('/ops/traffic/blocks', { kind: 'cidr', value: '10.9.0.0/16' }, null)
  assert.equal(forged.status, 403)
  assert.equal((await h.admin.get('/admin/v1/traffic/blocks')).body.blocks.length, 1)

  // "Remove"; an entry already gone is a 404 page with the reason above the forms.
  const removed = await ops.post(`/ops/traffic/blocks/${entry.block_id}/remove`, { day: DAY }, after)
  assert.equal(removed.status, 303)
  assert.equal(removed.location, `/ops/traffic?day=${DAY}&notice=unblocked`)
  assert.match((await ops.get(removed.location!)).words, /Nothing is blocked\./)
  const gone = await ops.post(`/ops/traffic/blocks/${entry.block_id}/remove`, { day: DAY }, after)
  assert.equal(gone.status, 404)
  assert.match(gone.words, /Traffic block not found\./)
  const [removal] = await auditEntries(h, { action: 'traffic_block.remove', target_id: entry.block_id })
  assert.deepEqual([removal.actor.email, removal.before.value, removal.after], [OPERATOR.email, `${BOT}/32`, null])
})

test("a reviewed day: the review's record and the credits it issued, each account linked", async () => {
  const adv = await h.advertiser()
  const campaignId = (await adv.post('/v1/campaigns', campaignBody({ name: 'Credited campaign' }))).body.campaign_id
  const db = h.svc.service.store.db
  await db
    .insertInto('traffic_reviews')
    .values({ day: '2026-10-31', reviewed_at: new Date('2026-11-01T01:00:00Z'), sources_flagged: 1, viewers_flagged: 0, units_voided: 3, credited_micros: 7_500 })
    .execute()
  await db.insertInto('traffic_credits').values({ day: '2026-10-31', user_id: adv.userId, campaign_id: campaignId, units: 3, micros: 7_500 }).execute()
  const email = (await h.admin.get(`/admin/v1/accounts/${adv.userId}`)).body.email
  const ops = await signedInOperator(h)
  const page = await ops.get('/ops/traffic?day=2026-10-31')
  assert.equal(page.status, 200)
  assert.match(page.words, /Credits issued Reviewed 2026-11-01 01:00 UTC: 1 source and 0 viewers flagged, 3 units voided, \$0\.0075 credited back\./)
  assert.ok(page.words.includes(`Account Campaign Units voided Credited ${email} Credited campaign ${campaignId} 3 $0.0075`), page.words.slice(-400))
  assert.ok(page.text.includes(`<a href="/ops/accounts/${adv.userId}">`))
})
