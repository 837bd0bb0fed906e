/**
 * Billing cadences (advertiser spec section 1): weekly auto-pay every Monday
 * 06:00 UTC; Net 30 on the 1st of each month at 06:00 UTC.
 */
export type BillingMode = 'weekly_autopay' | 'net30_invoice'
export type Cadence = 'weekly_monday_0600_utc' | 'monthly_1st_0600_utc_net30'

export const CADENCE_OF: Record<BillingMode, Cadence> = {
  weekly_autopay: 'weekly_monday_0600_utc',
  net30_invoice: 'monthly_1st_0600_utc_net30',
}

const HOUR = 3_600_000
const DAY = 24 * HOUR

/** The first Monday 06:00 UTC strictly after `now`. */
export function nextWeeklyRun(now: Date): Date {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const daysToMonday = (8 - new Date(midnight).getUTCDay()) % 7
  let run = midnight + daysToMonday * DAY + 6 * HOUR
  if (run <= now.getTime()) run += 7 * DAY
  return new Date(run)
}

/** The first 1st-of-month 06:00 UTC strictly after `now`. */
export function nextMonthlyRun(now: Date): Date {
  const thisMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 6)
  return new Date(thisMonth > now.getTime() ? thisMonth : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 6))
}

export function nextRun(mode: BillingMode, now: Date): Date {
  return mode === 'weekly_autopay' ? nextWeeklyRun(now) : nextMonthlyRun(now)
}

/** The latest Monday 06:00 UTC at or before `now`. */
export function lastWeeklyRun(now: Date): Date {
  // The first run strictly after (now − 7 days) is the last one at or before now.
  return nextWeeklyRun(new Date(now.getTime() - 7 * DAY))
}

/** The latest 1st-of-month 06:00 UTC at or before `now`. */
export function lastMonthlyRun(now: Date): Date {
  const thisMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 6)
  return new Date(thisMonth <= now.getTime() ? thisMonth : Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1, 6))
}

/** The latest scheduled run of `mode` at or before `now`: a run never invents a period that has not come. */
export function lastRun(mode: BillingMode, now: Date): Date {
  return mode === 'weekly_autopay' ? lastWeeklyRun(now) : lastMonthlyRun(now)
}

/** Net 30: due thirty days after finalization; auto-pay is due when charged. */
export function dueDate(mode: BillingMode, finalizedAt: Date): Date {
  return mode === 'net30_invoice' ? new Date(finalizedAt.getTime() + 30 * DAY) : finalizedAt
}
