import { MICROS_PER_CENT, MICROS_PER_USD, microsToUsd } from './money.ts'

/**
 * Order-time exposure limits (POST /campaigns 402):
 *  - the outstanding-balance cap (config, may be null) limits delivered value
 *    not yet invoiced plus the undelivered face value of live orders plus the
 *    new order;
 *  - a Net 30 account's credit limit also counts its finalized unpaid invoices.
 */
export interface Exposure {
  unbilledMicros: number
  bookedUndeliveredMicros: number
  unpaidInvoiceCents: number
}

export type ExposureDenial = { reason: 'outstanding_balance_cap' | 'credit_limit' } & Record<string, number | string>

export function checkExposure(
  e: Exposure,
  orderMicros: number,
  limits: { capUsd: number | null; net30CreditLimitCents: number | null },
): ExposureDenial | null {
  const outstanding = e.unbilledMicros + e.bookedUndeliveredMicros
  if (limits.capUsd !== null && outstanding + orderMicros > Math.round(limits.capUsd * MICROS_PER_USD)) {
    return {
      reason: 'outstanding_balance_cap',
      cap_usd: limits.capUsd,
      exposure_usd: microsToUsd(outstanding),
      order_total_usd: microsToUsd(orderMicros),
    }
  }
  if (limits.net30CreditLimitCents !== null) {
    const used = outstanding + e.unpaidInvoiceCents * MICROS_PER_CENT
    if (used + orderMicros > limits.net30CreditLimitCents * MICROS_PER_CENT) {
      return {
        reason: 'credit_limit',
        credit_limit_cents: limits.net30CreditLimitCents,
        exposure_usd: microsToUsd(used),
        order_total_usd: microsToUsd(orderMicros),
      }
    }
  }
  return null
}
