import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { visibleText } from '../helpers/html.ts'
import { campaignFormFields, outboxTo, portalAdvertiser, type PortalAdvertiser } from '../helpers/portal.ts'
import { signedInOperator } from '../helpers/ops.ts'

/**
 * Review states (issue 36): a campaign whose ad line is held for review, or was rejected, says so
 * where the advertiser looks (the create notice, the badge and banner of its page, the list, the
 * overview's groups), and the account is emailed each review decision exactly once, also when the
 * operator's call is retried or sent twice at once.
 */

const PUBLIC_URL = 'http://portal.example.test'
const h = useService({ PUBLIC_URL }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

const HELD_LINE = 'Accept crypto payments in your CI' // crypto_offer: accepted, held for review (domain/content-safety.ts)

/** The review emails to the account, newest first (its welcome email is left out). */
const reviewEmails = async (adv: PortalAdvertiser) => (await outboxTo(h, adv.email)).filter((m) => m.subject.startsWith('Ad line '))

/** Creates a campaign through the portal's form; answers the redirect. */
async function createThroughForm(adv: PortalAdvertiser, name: string, adLine: string) {
  const form = await adv.browser.get('/portal/campaigns/new')
  assert.equal(form.status, 200)
  const res = await adv.browser.post(
    '/portal/campaigns/new',
    campaignFormFields(form, { name, ad_line: adLine, brand: '', blocks: '1', destination_url: 'https://acme.dev/pay' }),
  )
  assert.equal(res.status, 303, res.words.slice(0, 500))
  const m = /^\/portal\/campaigns\/([^/?]+)\?notice=(\w+)$/.exec(res.location ?? '')
  assert.ok(m, `redirects to the campaign: ${res.location}`)
  return { id: m[1]!, notice: m[2]!, location: res.location! }
}

const decide = async (id: string, body: Record<string, string>) => {
  const res = await h.admin.post(`/admin/v1/campaigns/${id}/moderation`, body)
  assert.equal(res.status, 200, res.text)
}

/** The text of the overview's group under heading `id` (attention-h, review-h, active-h), up to the next heading. */
function group(html: string, id: string): string | null {
  const start = html.indexOf(`id="${id}"`)
  if (start < 0) return null
  const rest = html.slice(start)
  const end = rest.slice(1).search(/<h2[\s>]/)
  return visibleText(end < 0 ? rest : rest.slice(0, end + 1))
}

test('a held line: "waiting for review" on create, In review on the page, the list and the overview; never Active', async () => {
  const adv = await portalAdvertiser(h)
  const held = await createThroughForm(adv, 'Crypto checkout', HELD_LINE)
  assert.equal(held.notice, 'created_in_review')
  assert.equal((await adv.api.get(`/v1/campaigns/${held.id}`)).body.status, 'active', 'the API status is the contract, unchanged')
  const clean = await createThroughForm(adv, 'Plain CI', 'Ship faster with Acme CI')
  assert.equal(clean.notice, 'created')

  const page = await adv.browser.get(held.location)
  const text = visibleText(page.text)
  assert.match(text, /Campaign created\. Its ad line is waiting for review, so it does not serve yet\./)
  assert.match(text, /Status In review/)
  assert.doesNotMatch(text, /Status Active/)
  // The banner comes before everything else in the page's main content.
  assert.match(page.text, /<section class="state-banner warn" aria-labelledby="state-banner-h"><h2 id="state-banner-h">In review<\/h2>/)
  assert.ok(page.text.indexOf('state-banner') < page.text.indexOf('Served / bought'))
  assert.match(text, /Your ad line is in review \(usually within one business day\), so this campaign does not serve yet\. Nothing to do/)

  const list = visibleText((await adv.browser.get('/portal/campaigns')).text)
  assert.match(list, /Crypto checkout In review \$2\.50/)
  assert.match(list, /Plain CI Active \$2\.50/)

  const overview = (await adv.browser.get('/portal')).text
  assert.match(group(overview, 'review-h') ?? '', /Crypto checkout/)
  assert.doesNotMatch(group(overview, 'active-h') ?? '', /Crypto checkout/)
  assert.match(group(overview, 'active-h') ?? '', /Plain CI/)
  assert.equal(group(overview, 'attention-h'), null, 'nothing needs attention yet')
})

test('a rejection: one email with the reason and the way to rewrite, even when the call is retried or sent twice at once', async () => {
  const adv = await portalAdvertiser(h)
  const { id } = await createThroughForm(adv, 'Crypto checkout', HELD_LINE)
  assert.deepEqual(await reviewEmails(adv), [], 'nothing is emailed while the line waits')

  const reason = 'Name the payment processor in the line'
  await Promise.all([decide(id, { status: 'rejected', reason }), decide(id, { status: 'rejected', reason })])
  await decide(id, { status: 'rejected', reason })
  const emails = await reviewEmails(adv)
  assert.equal(emails.length, 1, 'one decision, one email')
  const [email] = emails
  assert.equal(email!.subject, 'Ad line rejected: Crypto checkout')
  assert.match(email!.text, /is decided: rejected\./)
  assert.match(email!.text, new RegExp(`^Ad line: ${HELD_LINE}$`, 'm'))
  assert.match(email!.text, new RegExp(`^Reason: ${reason}$`, 'm'))
  assert.ok(email!.text.includes(`Rewrite the ad line on the campaign page: ${PUBLIC_URL}/portal/campaigns/${id}#rewrite-ad-line`), email!.text)
  assert.doesNotMatch(email!.text, /contact support/i)

  const page = await adv.browser.get(`/portal/campaigns/${id}`)
  const text = visibleText(page.text)
  assert.match(text, /Status Rejected/)
  assert.match(page.text, /<section class="state-banner bad"/)
  assert.match(text, new RegExp(`Your ad line was rejected in review, so this campaign does not serve\\. Reason: ${reason} Write a new ad line: it is screened again`))
  assert.match(page.text, /<a class="button" href="#rewrite-ad-line">Rewrite the ad line<\/a>/)
  assert.match(page.text, /<div id="rewrite-ad-line"><form method="post" action="\/portal\/campaigns\/[^"]+\/ad-line"/)
  assert.match(text, new RegExp(`Rejected Reason: ${reason} Rewrite the ad line ?\\.`), 'the creatives table says it too')

  const overview = (await adv.browser.get('/portal')).text
  assert.match(group(overview, 'attention-h') ?? '', /Crypto checkout Rewrite the ad line/)
  assert.match(overview, new RegExp(`<a href="/portal/campaigns/${id}#rewrite-ad-line">Rewrite the ad line</a>`))
  assert.doesNotMatch(group(overview, 'active-h') ?? '', /Crypto checkout/)
  assert.match(visibleText((await adv.browser.get('/portal/campaigns')).text), /Crypto checkout Rejected/)

  // A new reason is a new decision: the advertiser hears of it; without one, the words say so plainly.
  await decide(id, { status: 'rejected' })
  const [again] = await reviewEmails(adv)
  assert.equal((await reviewEmails(adv)).length, 2)
  assert.match(again!.text, /^Reason: The reviewer did not give a reason\.$/m)
  const plain = visibleText((await adv.browser.get(`/portal/campaigns/${id}`)).text)
  assert.match(plain, /Reason: The reviewer did not give a reason\./)
  assert.doesNotMatch(plain, /contact support/i)
})

test('rewriting a rejected line: a clean line serves at once; a held one waits again and its approval is emailed once', async () => {
  const adv = await portalAdvertiser(h)
  const { id } = await createThroughForm(adv, 'Crypto checkout', HELD_LINE)
  await decide(id, { status: 'rejected', reason: 'Too vague' })
  const path = `/portal/campaigns/${id}`

  await adv.browser.get(path)
  const heldAgain = await adv.browser.post(`${path}/ad-line`, { ad_line: 'Take bitcoin payments in CI' })
  assert.equal(heldAgain.location, `${path}?notice=ad_line_in_review`)
  let text = visibleText((await adv.browser.get(heldAgain.location!)).text)
  assert.match(text, /Ad line rewritten\. The new line is waiting for review/)
  assert.match(text, /Status In review/)

  // The operator's console decides through the same use case: one approval email.
  const ops = await signedInOperator(h)
  const queue = await ops.get('/ops/moderation')
  assert.equal(queue.status, 200)
  const approved = await ops.post(`/ops/moderation/${id}`, { status: 'approved', reason: '' }, queue)
  assert.equal(approved.status, 303, approved.words.slice(0, 300))
  await decide(id, { status: 'approved' })
  const emails = await reviewEmails(adv)
  assert.deepEqual(emails.map((m) => m.subject), ['Ad line approved: Crypto checkout', 'Ad line rejected: Crypto checkout'])
  assert.match(emails[0]!.text, /^Ad line: Take bitcoin payments in CI$/m)
  assert.match(emails[0]!.text, /This campaign is active and takes part in the auction\./)
  assert.ok(emails[0]!.text.endsWith(`Campaign page: ${PUBLIC_URL}${path}`))
  text = visibleText((await adv.browser.get(path)).text)
  assert.match(text, /Status Active/)
  assert.doesNotMatch(text, /state-banner|In review/)

  await adv.browser.get(path)
  const clean = await adv.browser.post(`${path}/ad-line`, { ad_line: 'Ship faster with Acme CI' })
  assert.equal(clean.location, `${path}?notice=ad_line_rewritten`)
  assert.equal((await reviewEmails(adv)).length, 2, 'a line that needs no review is no decision')
})
