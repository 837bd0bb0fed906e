/**
 * Campaign lifecycle (advertiser spec section 3). Delivery state lives on
 * blocks; `completed` is reached when every block is exhausted.
 */
export const CAMPAIGN_STATUSES = ['active', 'paused', 'cancelled_user', 'completed'] as const
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number]

export type Transition = { to: CampaignStatus; changed: boolean } | { conflict: string }

export function pauseTransition(status: string): Transition {
  if (status === 'active') return { to: 'paused', changed: true }
  if (status === 'paused') return { to: 'paused', changed: false }
  return { conflict: `a ${status} campaign cannot be paused` }
}

export function resumeTransition(status: string): Transition {
  if (status === 'paused') return { to: 'active', changed: true }
  if (status === 'active') return { to: 'active', changed: false }
  return { conflict: `a ${status} campaign cannot be resumed` }
}

export function cancelTransition(status: string): Transition {
  if (status === 'active' || status === 'paused') return { to: 'cancelled_user', changed: true }
  if (status === 'cancelled_user') return { conflict: 'the campaign is already cancelled' }
  return { conflict: `a ${status} campaign cannot be cancelled` }
}

/** Why the live ad line cannot be rewritten (PATCH ad_line, 409), or null: a cancelled campaign has none. Renaming is always allowed. */
export function adLineRewriteConflict(status: string): string | null {
  return status === 'cancelled_user' ? 'a cancelled campaign has no live ad line to rewrite' : null
}

/** Milliseconds spent paused, folded in when a pause ends (pacing excludes paused time). */
export function pausedMillis(pausedAt: Date | null, now: Date): number {
  return pausedAt === null ? 0 : Math.max(0, now.getTime() - pausedAt.getTime())
}
