import type { Job } from './scheduler.ts'
import { nextMonthlyRun, nextWeeklyRun } from '../domain/billing-schedule.ts'
import { runInvoicing, type BillingContext } from '../services/billing.ts'

/** Weekly auto-pay (Mondays 06:00 UTC) and Net 30 (the 1st, 06:00 UTC) invoicing runs. */
export function invoicingJob(ctx: BillingContext): Job {
  return {
    name: 'invoicing',
    nextDue: (after) => {
      const weekly = nextWeeklyRun(after)
      const monthly = nextMonthlyRun(after)
      return weekly < monthly ? weekly : monthly
    },
    run: (now) => runInvoicing(ctx, now),
  }
}
