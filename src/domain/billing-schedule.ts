/**
 * Billing cadences (advertiser spec section 1, issue 19): weekly auto-pay
 * every Monday 06:00 UTC; Net 30 on the 1st of each month at 06:00 UTC; the
 * legacy semi-monthly auto-pay on the 1st and the 15th at 06:00 UTC. An
 * account is invoiced only at the instants of its own cadence, and the period
 * of an invoice ends at such an instant.
 */
export const BILLING_MODES = ['weekly_autopay', 'net30_invoice', 'legacy_semimonthly_autopay'] as const
export type BillingMode = (typeof BILLING_MODES)[number]
export const CADENCES = ['weekly_monday_0600_utc', 'monthly_1st_0600_utc_net30', 'semi_monthly_1_15'] as const
export type Cadence = (typeof CADENCES)[number]

export const CADENCE_OF: Record<BillingMode, Cadence> = {
  weekly_autopay: 'weekly_monday_0600_utc',
  net30_invoice: 'monthly_1st_0600_utc_net30',
  legacy_semimonthly_autopay: 'semi_monthly_1_15',
}

/** Modes whose invoices are charged to the saved card at finalization (Net 30 waits for payment). */
export const AUTOPAY_MODES: readonly BillingMode[] = ['weekly_autopay', 'legacy_semimonthly_autopay']

export function isBillingMode(value: string): value is BillingMode {
  return BILLING_MODES.some((m) => m === value)
}

const HOUR = 3_600_000
const DAY = 24 * HOUR
const RUN_HOUR = 6

/** The first Monday 06:00 UTC strictly after `now`. */
export function nextWeeklyRun(now: Date): Date {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const daysToMonday = (8 - new Date(midnight).getUTCDay()) % 7
  let run = midnight + daysToMonday * DAY + RUN_HOUR * HOUR
  if (run <= now.getTime()) run += 7 * DAY
  return new Date(run)
}

/** The first instant strictly after `now` on one of `days` of the month (ascending), at 06:00 UTC. */
function nextMonthDayRun(now: Date, days: readonly number[]): Date {
  for (let monthOffset = 0; ; monthOffset++) {
    for (const day of days) {
      const run = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + monthOffset, day, RUN_HOUR)
      if (run > now.getTime()) return new Date(run)
    }
  }
}

/** The first 1st-of-month 06:00 UTC strictly after `now`. */
export function nextMonthlyRun(now: Date): Date {
  return nextMonthDayRun(now, [1])
}

/** The first 1st or 15th of a month, 06:00 UTC, strictly after `now`. */
export function nextSemiMonthlyRun(now: Date): Date {
  return nextMonthDayRun(now, [1, 15])
}

/** The first instant of `cadence` strictly after `now`. */
export function nextInstant(cadence: Cadence, now: Date): Date {
  switch (cadence) {
    case 'weekly_monday_0600_utc':
      return nextWeeklyRun(now)
    case 'monthly_1st_0600_utc_net30':
      return nextMonthlyRun(now)
    case 'semi_monthly_1_15':
      return nextSemiMonthlyRun(now)
  }
}

/**
 * The latest instant of `cadence` at or before `now`. Consecutive instants
 * are at most 31 days apart, so the first one after (now − 32 days) is found
 * and stepped forward while the next one has not come.
 */
export function lastInstant(cadence: Cadence, now: Date): Date {
  let at = nextInstant(cadence, new Date(now.getTime() - 32 * DAY))
  for (let next = nextInstant(cadence, at); next.getTime() <= now.getTime(); next = nextInstant(cadence, at)) at = next
  return at
}

export function isInstant(cadence: Cadence, at: Date): boolean {
  return lastInstant(cadence, at).getTime() === at.getTime()
}

/** The next invoicing instant of `mode` strictly after `now` (the account's next bill). */
export function nextRun(mode: BillingMode, now: Date): Date {
  return nextInstant(CADENCE_OF[mode], now)
}

/** The latest invoicing instant of `mode` at or before `now`: a run never invents a period that has not come. */
export function lastRun(mode: BillingMode, now: Date): Date {
  return lastInstant(CADENCE_OF[mode], now)
}

/** The modes whose cadence has an instant exactly at `at`: the ones an invoicing run at `at` finalizes. */
export function modesDueAt(at: Date): BillingMode[] {
  return BILLING_MODES.filter((m) => isInstant(CADENCE_OF[m], at))
}

/** The first instant strictly after `after` at which any cadence invoices (the invoicing job's schedule). */
export function nextInvoicingInstant(after: Date): Date {
  const instants = BILLING_MODES.map((m) => nextRun(m, after).getTime())
  return new Date(Math.min(...instants))
}

/** Net 30: due thirty days after the period end; auto-pay is due when charged. */
export function dueDate(mode: BillingMode, periodEnd: Date): Date {
  return mode === 'net30_invoice' ? new Date(periodEnd.getTime() + 30 * DAY) : periodEnd
}
