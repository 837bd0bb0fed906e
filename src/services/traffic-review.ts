import { microsToCents } from '../domain/money.ts'
import type { Source } from '../domain/traffic-source.ts'
import { newId } from '../platform/ids.ts'
import { lockAccount } from '../store/accounts.ts'
import { insertCredit, recordBillingEvent } from '../store/billing.ts'
import { readRolledThrough, rewriteDayRollups } from '../store/rollups.ts'
import { insertTrafficReview, isDayReviewed, voidUnits, type VoidedOnCampaign } from '../store/traffic-review.ts'
import type { ServiceContext } from './context.ts'

/** What the review of one day found invalid (services/traffic-quality.ts#judgeTrafficDay scores it). */
export interface TrafficVerdict {
  invalidSources: readonly Source[]
  invalidViewers: readonly string[]
}

export interface TrafficReviewResult {
  day: string
  /** False when the day had been reviewed already: nothing was written. */
  reviewed: boolean
  sources_flagged: number
  viewers_flagged: number
  units_voided: number
  credited_micros: number
  /** Accounts credited, and how much each got back in cents. */
  credits: { user_id: string; amount_cents: number }[]
}

/** The credit's memo, as the advertiser reads it on the billing page and the invoice. */
export function trafficCreditMemo(day: string, units: number): string {
  return `Invalid traffic on ${day}: ${units.toLocaleString('en-US')} billed ${units === 1 ? 'unit' : 'units'} voided and credited back`
}

/**
 * Gives back what invalid traffic of one closed UTC day cost (docs/invalid-traffic.md): in one
 * transaction, every billable impression and click of the day from an invalid source or viewer gets
 * its voided row (it then counts as `invalid_traffic`, never billable), each campaign's share is
 * recorded, and each account gets one adjustment credit tied to the day: the debits it gave back,
 * in cents by THE rounding rule (domain/money.ts), applied to its next invoice. A day is reviewed
 * once (`traffic_reviews`); a rerun writes nothing. If the day's rollups were closed already they
 * are rolled up again, so every read path counts the voided units alike.
 */
export async function reviewTrafficDay(ctx: Pick<ServiceContext, 'db' | 'clock'>, day: string, verdict: TrafficVerdict): Promise<TrafficReviewResult> {
  return ctx.db.transaction().execute(async (trx): Promise<TrafficReviewResult> => {
    const none = { day, sources_flagged: 0, viewers_flagged: 0, units_voided: 0, credited_micros: 0, credits: [] }
    if (await isDayReviewed(trx, day)) return { ...none, reviewed: false }
    const voided = await voidUnits(trx, day, verdict.invalidSources, verdict.invalidViewers)
    const byAccount = new Map<string, VoidedOnCampaign[]>()
    for (const v of voided) byAccount.set(v.user_id, [...(byAccount.get(v.user_id) ?? []), v])
    const now = ctx.clock.now()
    const credits: TrafficReviewResult['credits'] = []
    // Accounts in id order: the order every writer locks them in.
    for (const [userId, campaigns] of [...byAccount].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const micros = campaigns.reduce((n, c) => n + c.micros, 0)
      const units = campaigns.reduce((n, c) => n + c.units, 0)
      const amountCents = microsToCents(micros)
      // A click campaign's voided views debited nothing: counted as invalid, nothing to give back.
      if (amountCents === 0) continue
      await lockAccount(trx, userId)
      const credit = { credit_id: newId('crd'), user_id: userId, amount_cents: amountCents, memo: trafficCreditMemo(day, units), posted_at: now, ivt_day: day }
      await insertCredit(trx, credit)
      await recordBillingEvent(trx, {
        user_id: userId,
        occurred_at: now,
        event_type: 'credit_posted',
        credit_id: credit.credit_id,
        amount_cents: amountCents,
        detail: { memo: credit.memo, invalid_traffic_day: day, units, micros },
      })
      credits.push({ user_id: userId, amount_cents: amountCents })
    }
    const summary = {
      sources_flagged: verdict.invalidSources.length,
      viewers_flagged: verdict.invalidViewers.length,
      units_voided: voided.reduce((n, v) => n + v.units, 0),
      credited_micros: voided.reduce((n, v) => n + v.micros, 0),
    }
    await insertTrafficReview(trx, { day, reviewed_at: now, ...summary })
    const rolledThrough = await readRolledThrough(trx)
    if (summary.units_voided > 0 && rolledThrough !== null && rolledThrough >= day) await rewriteDayRollups(trx, day)
    return { day, reviewed: true, ...summary, credits }
  })
}
