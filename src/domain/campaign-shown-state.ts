import type { ModerationStatus } from './campaign-order.ts'
import type { CampaignStatus } from './campaign-state.ts'

/**
 * The state a person sees for a campaign (issue 36): the API's `status` says
 * where the order is in its lifecycle, but an `active` campaign whose live
 * ad line waits for review, or was rejected, serves nothing. The pages and
 * the review email show this state instead, with the next step; the API's
 * `status` enum is a contract and stays as it is.
 *
 * Precedence: an ended campaign (cancelled, completed) is that, whatever its
 * line; otherwise a rejected line, then a line in review, then the lifecycle
 * (active, paused). A campaign without a creative reads as its lifecycle.
 */
export const SHOWN_STATES = ['rejected', 'in_review', 'active', 'paused', 'completed', 'cancelled'] as const
export type ShownState = (typeof SHOWN_STATES)[number]

/** What the next step asks of the advertiser, for the page to turn into a link or a button. */
export type NextStep = 'rewrite_line' | 'wait_for_review' | 'resume' | 'new_campaign' | null

export interface ShownCampaignState {
  state: ShownState
  /** The badge's word. */
  label: string
  /** Whether the campaign can win auctions now. */
  serving: boolean
  /** What is true, in a sentence. */
  headline: string
  /** What to do next, in a sentence; empty when nothing is asked. */
  next: string
  nextStep: NextStep
  /** A rejection's reason as the advertiser reads it: the operator's words, or a plain sentence when none was given. Null otherwise. */
  reason: string | null
}

/** Said when an operator rejected a line without a reason. */
export const NO_REASON_GIVEN = 'The reviewer did not give a reason.'

/** How long a review usually takes, as the portal and the emails say it. */
export const REVIEW_TIME = 'usually within one business day'

export function shownCampaignState(
  status: CampaignStatus,
  moderation: ModerationStatus | null,
  moderationReason: string | null = null,
): ShownCampaignState {
  const none = { reason: null }
  if (status === 'cancelled_user') {
    return {
      state: 'cancelled',
      label: 'Cancelled',
      serving: false,
      headline: 'This campaign is cancelled and no longer serves.',
      next: 'To advertise again, create a new campaign.',
      nextStep: 'new_campaign',
      ...none,
    }
  }
  if (status === 'completed') {
    return {
      state: 'completed',
      label: 'Completed',
      serving: false,
      headline: 'Every block of this campaign is delivered.',
      next: 'To keep advertising, create a new campaign.',
      nextStep: 'new_campaign',
      ...none,
    }
  }
  const paused = status === 'paused'
  if (moderation === 'rejected') {
    const reason = moderationReason?.trim() ? moderationReason.trim() : NO_REASON_GIVEN
    return {
      state: 'rejected',
      label: 'Rejected',
      serving: false,
      headline: 'Your ad line was rejected in review, so this campaign does not serve.',
      next: 'Write a new ad line: it is screened again and, when it needs one, reviewed again. Nothing is billed until it serves.',
      nextStep: 'rewrite_line',
      reason,
    }
  }
  if (moderation === 'pending') {
    return {
      state: 'in_review',
      label: 'In review',
      serving: false,
      headline: `Your ad line is in review (${REVIEW_TIME}), so this campaign does not serve yet.`,
      next: paused
        ? 'The campaign is also paused: once the line is approved, resume it to serve. We email you when the review is decided.'
        : 'Nothing to do: it starts serving once the line is approved, and we email you when the review is decided.',
      nextStep: 'wait_for_review',
      ...none,
    }
  }
  if (paused) {
    return {
      state: 'paused',
      label: 'Paused',
      serving: false,
      headline: 'This campaign is paused: it keeps its place but does not serve.',
      next: 'Resume it to serve again.',
      nextStep: 'resume',
      ...none,
    }
  }
  return { state: 'active', label: 'Active', serving: true, headline: 'This campaign is active and takes part in the auction.', next: '', nextStep: null, ...none }
}
