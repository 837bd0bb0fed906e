import { MICROS_PER_CENT, MICROS_PER_USD } from './money.ts'
import type { BalanceFigures } from './balance.ts'

/**
 * Order-time balance limits (POST /campaigns 402). Both compare what the
 * account already owes, never the order being placed: an order's face value
 * is a maximum, not a debt, and an account that owes nothing may always
 * place an order that fits the config gates.
 *  - The outstanding-balance cap (config, may be null) limits the
 *    not-yet-invoiced balance, `Account.outstanding_cents`: reaching the cap
 *    (outstanding >= cap) refuses the create.
 *  - A Net 30 account's credit limit limits its whole payable balance,
 *    `balance.owed_cents` (not-yet-invoiced delivered value plus finalized
 *    unpaid invoices minus posted credits): reaching the limit refuses it.
 */
export type ExposureDenial = { reason: 'outstanding_balance_cap' | 'credit_limit' } & Record<string, number | string>

export function checkExposure(
  balance: Pick<BalanceFigures, 'pending_cents' | 'owed_cents'>,
  limits: { capUsd: number | null; net30CreditLimitCents: number | null },
): ExposureDenial | null {
  const outstandingCents = balance.pending_cents
  // The cap is an operator-set USD amount; compared in micros so a fractional cent of cap is not rounded away.
  if (limits.capUsd !== null && outstandingCents * MICROS_PER_CENT >= Math.round(limits.capUsd * MICROS_PER_USD)) {
    return { reason: 'outstanding_balance_cap', cap_usd: limits.capUsd, outstanding_cents: outstandingCents }
  }
  if (limits.net30CreditLimitCents !== null && balance.owed_cents >= limits.net30CreditLimitCents) {
    return { reason: 'credit_limit', credit_limit_cents: limits.net30CreditLimitCents, owed_cents: balance.owed_cents }
  }
  return null
}
