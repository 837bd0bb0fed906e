import type { Job } from './scheduler.ts'
import { nextInvoicingInstant } from '../domain/billing-schedule.ts'
import { runInvoicing, runInvoicingOccurrence, type InvoicingContext } from '../services/billing/invoicing.ts'

/**
 * Invoicing at every instant of any cadence (Mondays, the 1st and the 15th,
 * 06:00 UTC). A scheduled occurrence finalizes the periods ending at its
 * instant; missed occurrences are replayed one by one, in time order, so each
 * billing period is finalized on its own. On demand it runs what is due now.
 */
export function invoicingJob(ctx: InvoicingContext): Job {
  return {
    name: 'invoicing',
    catchUp: 'each',
    nextDue: (after) => nextInvoicingInstant(after),
    run: (now, due) => (due === null ? runInvoicing(ctx, now) : runInvoicingOccurrence(ctx, due)),
  }
}
