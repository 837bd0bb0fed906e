import { invalid } from './errors.ts'
import { checkDisplayText, displayTextFacts } from './text-rules.ts'
import type { ShownCampaignState } from './campaign-shown-state.ts'

/**
 * An operator's moderation decision. A rejection may carry a reason, which
 * the advertiser then sees (`moderation_reason`); an approval carries none
 * (a reason on an approval would be shown to nobody, so it is refused).
 */
export const MODERATION_DECISIONS = ['approved', 'rejected'] as const
export type ModerationDecision = (typeof MODERATION_DECISIONS)[number]

/** The longest reason, in user-perceived characters after trimming. */
export const MODERATION_REASON_MAX = 500

/** The reason to store with a decision: trimmed, null when absent or empty; 400 naming `reason` otherwise. */
export function decisionReason(status: ModerationDecision, reason: string | undefined): string | null {
  const text = reason?.trim() ?? ''
  if (text === '') return null
  if (status !== 'rejected') throw invalid('reason', 'rejection_only')
  const problem = checkDisplayText(text, 1, MODERATION_REASON_MAX)
  if (problem) throw invalid('reason', problem, displayTextFacts(problem, null, MODERATION_REASON_MAX))
  return text
}

/** What the review email states: the campaign, its line, the decision and the state it leaves the campaign in. */
export interface ModerationDecisionFacts {
  campaignName: string
  adLine: string
  decision: ModerationDecision
  /** The campaign as the advertiser now sees it (domain/campaign-shown-state.ts), after the decision. */
  shown: ShownCampaignState
  /** The campaign's page in the portal. */
  campaignUrl: string
}

/** The anchor of the campaign page's "Rewrite ad line" form, where a rejection's email and banner lead. */
export const REWRITE_ANCHOR = 'rewrite-ad-line'

/**
 * The plain-text email to the account when an operator decides its ad line's review (issue 36):
 * the decision, the line, a rejection's reason (or a plain sentence when none was given), what
 * the campaign does now and the next step, with the link to the campaign page.
 */
export function moderationDecisionEmail(f: ModerationDecisionFacts): { subject: string; text: string } {
  const approved = f.decision === 'approved'
  const subject = `${approved ? 'Ad line approved' : 'Ad line rejected'}: ${f.campaignName}`
  const lines = [
    `The review of the ad line of your campaign "${f.campaignName}" is decided: ${approved ? 'approved' : 'rejected'}.`,
    '',
    `Ad line: ${f.adLine}`,
    ...(f.shown.reason === null ? [] : [`Reason: ${f.shown.reason}`]),
    '',
    f.shown.headline,
    ...(f.shown.next === '' ? [] : [f.shown.next]),
    '',
    f.shown.nextStep === 'rewrite_line' ? `Rewrite the ad line on the campaign page: ${f.campaignUrl}#${REWRITE_ANCHOR}` : `Campaign page: ${f.campaignUrl}`,
  ]
  return { subject, text: lines.join('\n') }
}
