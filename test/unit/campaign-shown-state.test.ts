import assert from 'node:assert/strict'
import { test } from 'node:test'
import { NO_REASON_GIVEN, shownCampaignState, SHOWN_STATES } from '../../src/domain/campaign-shown-state.ts'
import { CAMPAIGN_STATUSES } from '../../src/domain/campaign-state.ts'
import { MODERATION_STATUSES } from '../../src/domain/campaign-order.ts'
import { moderationDecisionEmail, REWRITE_ANCHOR } from '../../src/domain/moderation.ts'

test('a campaign whose line cannot serve is never shown as Active (issue 36)', () => {
  const state = (status: (typeof CAMPAIGN_STATUSES)[number], moderation: (typeof MODERATION_STATUSES)[number] | null) => shownCampaignState(status, moderation).state
  assert.equal(state('active', 'approved'), 'active')
  assert.equal(state('active', null), 'active', 'no creative: the lifecycle')
  assert.equal(state('active', 'pending'), 'in_review')
  assert.equal(state('active', 'rejected'), 'rejected')
  assert.equal(state('paused', 'approved'), 'paused')
  assert.equal(state('paused', 'pending'), 'in_review')
  assert.equal(state('paused', 'rejected'), 'rejected')
  // An ended campaign is that, whatever its line.
  for (const moderation of [...MODERATION_STATUSES, null]) {
    assert.equal(state('completed', moderation), 'completed')
    assert.equal(state('cancelled_user', moderation), 'cancelled')
  }
})

test('every state says what is true and what to do next; only Active serves', () => {
  for (const status of CAMPAIGN_STATUSES) {
    for (const moderation of [...MODERATION_STATUSES, null]) {
      const s = shownCampaignState(status, moderation, 'Misleading claim')
      assert.ok(SHOWN_STATES.includes(s.state))
      assert.notEqual(s.label, '')
      assert.notEqual(s.headline, '')
      assert.equal(s.serving, s.state === 'active')
      assert.equal(s.next === '', s.nextStep === null, `${s.state}: a next step has its words`)
      assert.doesNotMatch(`${s.headline} ${s.next}`, /contact support/i, 'no dead end')
    }
  }
  const review = shownCampaignState('active', 'pending')
  assert.deepEqual([review.label, review.nextStep, review.reason], ['In review', 'wait_for_review', null])
  assert.match(review.headline, /in review \(usually within one business day\)/)
  assert.match(review.next, /we email you when the review is decided/)
  assert.match(shownCampaignState('paused', 'pending').next, /also paused: once the line is approved, resume it/)
  assert.equal(shownCampaignState('paused', 'approved').nextStep, 'resume')
  assert.equal(shownCampaignState('completed', 'approved').nextStep, 'new_campaign')
})

test('a rejection carries the operator\'s reason, or a plain sentence when none was given, and asks for a rewrite', () => {
  const given = shownCampaignState('active', 'rejected', '  Name the payment processor  ')
  assert.deepEqual([given.label, given.nextStep, given.reason], ['Rejected', 'rewrite_line', 'Name the payment processor'])
  assert.match(given.next, /^Write a new ad line/)
  assert.equal(shownCampaignState('active', 'rejected', null).reason, NO_REASON_GIVEN)
  assert.equal(shownCampaignState('active', 'rejected', '   ').reason, NO_REASON_GIVEN)
  // A reason only means something on a rejection.
  assert.equal(shownCampaignState('active', 'pending', 'crypto_offer').reason, null)
})

test('the review email: the decision, the line, the reason and the next step, with the campaign page', () => {
  const url = 'https://ads.example.test/portal/campaigns/cmp_1'
  const rejected = moderationDecisionEmail({
    campaignName: 'Crypto CI',
    adLine: 'Accept crypto payments in your CI',
    decision: 'rejected',
    shown: shownCampaignState('active', 'rejected', 'Name the payment processor'),
    campaignUrl: url,
  })
  assert.equal(rejected.subject, 'Ad line rejected: Crypto CI')
  assert.match(rejected.text, /is decided: rejected\./)
  assert.match(rejected.text, /^Ad line: Accept crypto payments in your CI$/m)
  assert.match(rejected.text, /^Reason: Name the payment processor$/m)
  assert.ok(rejected.text.includes(`Rewrite the ad line on the campaign page: ${url}#${REWRITE_ANCHOR}`))

  const approved = moderationDecisionEmail({
    campaignName: 'Crypto CI',
    adLine: 'Accept crypto payments in your CI',
    decision: 'approved',
    shown: shownCampaignState('active', 'approved'),
    campaignUrl: url,
  })
  assert.equal(approved.subject, 'Ad line approved: Crypto CI')
  assert.doesNotMatch(approved.text, /Reason:/)
  assert.match(approved.text, /active and takes part in the auction/)
  assert.ok(approved.text.endsWith(`Campaign page: ${url}`))
  const paused = moderationDecisionEmail({ campaignName: 'C', adLine: 'L', decision: 'approved', shown: shownCampaignState('paused', 'approved'), campaignUrl: url })
  assert.match(paused.text, /Resume it to serve again\./)
})
