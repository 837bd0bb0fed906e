import type { NonBillableReason } from './delivery.ts'

/**
 * Attested views (operations.md section 2, "Attested views"; docs/attestation.md): the rules, with no
 * cryptography, store or clock. The wire formats and signatures are src/platform/privacy-pass.ts's.
 */

/** Config `attestation`: whether views need a Privacy Pass token to bill. */
export const ATTESTATION_MODES = ['off', 'prefer', 'required'] as const
export type AttestationMode = (typeof ATTESTATION_MODES)[number]

/** What a view report carried: no token, a token that failed a check, or a token that passed them (its nonce, hex). */
export type PresentedToken = { kind: 'none' } | { kind: 'invalid' } | { kind: 'valid'; nonce: string }

/**
 * How a view's token bears on its billing, before the store is asked whether the token was spent:
 * `off` ignores tokens; otherwise an invalid token makes the view non-billable (`invalid_token`), none
 * does under `required` (`unattested`), and a valid one makes it attested (`nonce`: exempt from the
 * address bounds, claimed once with its billable row).
 */
export function attestationOf(mode: AttestationMode, presented: PresentedToken): { reason: NonBillableReason | null; nonce: string | null } {
  if (mode === 'off') return { reason: null, nonce: null }
  if (presented.kind === 'invalid') return { reason: 'invalid_token', nonce: null }
  if (presented.kind === 'none') return { reason: mode === 'required' ? 'unattested' : null, nonce: null }
  return { reason: null, nonce: presented.nonce }
}

const DAY_MS = 86_400_000

/**
 * The issuer's key periods: period n runs from n × `days` days after the epoch (UTC midnight); its key
 * issues during it and redeems until the end of the next period, so a token fetched on the last day
 * of a key still bills for a whole period.
 */
export interface KeyWindow {
  period: number
  notBeforeMs: number
  issueUntilMs: number
  redeemUntilMs: number
}

export function keyPeriodOf(nowMs: number, days: number): number {
  return Math.floor(nowMs / (days * DAY_MS))
}

export function keyWindow(period: number, days: number): KeyWindow {
  const length = days * DAY_MS
  return { period, notBeforeMs: period * length, issueUntilMs: (period + 1) * length, redeemUntilMs: (period + 2) * length }
}

/** Whether a key of `window` redeems tokens at `nowMs` (from its first instant to the end of its redemption window). */
export const redeemsAt = (window: Pick<KeyWindow, 'notBeforeMs' | 'redeemUntilMs'>, nowMs: number) => nowMs >= window.notBeforeMs && nowMs < window.redeemUntilMs

/** Seconds until the next UTC day: the Retry-After of a subject past its daily tokens. */
export const secondsToNextUtcDay = (nowMs: number) => Math.max(1, Math.ceil((DAY_MS - (nowMs % DAY_MS)) / 1000))
