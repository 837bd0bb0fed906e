import { listCredits, type CreditRow } from '../store/billing.ts'
import { listTrafficCredits } from '../store/traffic-review.ts'
import type { ServiceContext } from './context.ts'

/** An account's credits, newest first (the portal's billing page): operators' adjustments and the invalid-traffic credits. */
export async function listAccountCredits(ctx: Pick<ServiceContext, 'db'>, userId: string): Promise<CreditRow[]> {
  return listCredits(ctx.db, userId)
}

/** What the daily traffic review voided and gave back on one of the account's campaigns, per UTC day, newest first. */
export async function listCampaignTrafficCredits(
  ctx: Pick<ServiceContext, 'db'>,
  userId: string,
  campaignId: string,
): Promise<{ day: string; units: number; micros: number }[]> {
  return (await listTrafficCredits(ctx.db, userId, campaignId)).map(({ day, units, micros }) => ({ day, units, micros }))
}
