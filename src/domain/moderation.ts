import { invalid } from './errors.ts'
import { checkDisplayText, displayTextFacts } from './text-rules.ts'

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
