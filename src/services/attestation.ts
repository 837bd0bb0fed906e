import { createHmac, randomBytes } from 'node:crypto'
import { secondsToNextUtcDay } from '../domain/attestation.ts'
import { utcDay } from '../domain/clicks.ts'
import { freshDevAttesterKey, type Attester } from '../platform/attester.ts'
import { base64url } from '../platform/privacy-pass.ts'
import type { IssuerKeys } from '../serving/issuer-keys.ts'
import { countSubjectTokens, readAllIssuerKeys } from '../store/privacy-pass.ts'
import { ensureStoredSecret, readConfig } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'

/**
 * Attested views, the issuer's use cases (docs/attestation.md): the issuer directory, one token
 * issuance for an attested subject within its daily allowance, the development attester's JWT,
 * and what the transparency log publishes.
 */

/** The issuer's parts an instance holds: its keys and, when one is configured, the attester. */
export interface AttestationParts {
  keys: IssuerKeys
  attester: Attester | null
}

export type IssueOutcome =
  | { ok: true; response: Buffer }
  | { ok: false; status: 400 | 401 | 429 | 503; detail: string; retryAfterS?: number }

/** The development attester's key, shared through the store by every instance (ATTESTER=dev). */
export const devAttesterKey = (ctx: Pick<ServiceContext, 'db'>) => ensureStoredSecret(ctx.db, 'dev_attester_key', () => freshDevAttesterKey().toString('hex'))

/**
 * Issues one token (RFC 9578 section 6.2) to the bearer of an attester JWT: the JWT must verify
 * (401), the request must be a type 0x0002 request for the issuing key (400), and the subject must
 * be within `attest_tokens_per_subject_per_day` for the UTC day (429 until the next day). The subject
 * is counted as an HMAC under a stored key and never stored or logged otherwise.
 */
export async function issueToken(ctx: ServiceContext, parts: AttestationParts, bearer: string | null, request: Buffer): Promise<IssueOutcome> {
  if (!parts.attester) return { ok: false, status: 401, detail: 'no attester is configured: this service issues no tokens' }
  if (bearer === null) return { ok: false, status: 401, detail: 'send the attester JWT as Authorization: Bearer <jwt>' }
  const now = ctx.clock.now()
  const verdict = await parts.attester.verify(bearer, now)
  if ('refused' in verdict) {
    return verdict.unavailable ? { ok: false, status: 503, detail: verdict.refused, retryAfterS: 5 } : { ok: false, status: 401, detail: verdict.refused }
  }
  const { signer } = await parts.keys.issuing()
  // Checked before counting, so that a malformed request costs the subject nothing.
  const checked = signer.sign(request)
  if ('refused' in checked) {
    return {
      ok: false,
      status: 400,
      detail:
        checked.refused === 'malformed'
          ? 'the body must be one TokenRequest of token type 0x0002 (RFC 9578 section 6.1), 259 bytes'
          : 'the request names a key that is not issuing now: fetch /.well-known/private-token-issuer-directory and use its first key',
    }
  }
  const [config, subjectKey] = await Promise.all([readConfig(ctx.db), ensureStoredSecret(ctx.db, 'attester_subject_key', () => randomBytes(32).toString('hex'))])
  const subject = createHmac('sha256', subjectKey).update(`${verdict.issuer}\n${verdict.subject}`).digest()
  const limit = config.attest_tokens_per_subject_per_day
  if (!(await countSubjectTokens(ctx.db, subject, utcDay(now.getTime()), 1, limit))) {
    const retryAfterS = secondsToNextUtcDay(now.getTime())
    return { ok: false, status: 429, detail: `this account has been issued its ${limit} tokens for the UTC day`, retryAfterS }
  }
  return { ok: true, response: checked.response }
}

/** The issuer directory (RFC 9578 section 4): where to ask, and the keys whose tokens redeem now, newest (issuing) first. */
export async function issuerDirectory(ctx: Pick<ServiceContext, 'settings'>, parts: AttestationParts) {
  const keys = await parts.keys.published()
  return {
    'issuer-request-uri': `${ctx.settings.publicUrl}/serve/v1/token-requests`,
    'token-keys': keys.map((k) => ({ 'token-type': 2, 'token-key': base64url(k.token_key), 'not-before': Math.floor(k.not_before.getTime() / 1000) })),
  }
}

/** What the transparency log publishes of the issuer: the challenge and every key ever used, newest first. */
export async function publishedIssuer(ctx: Pick<ServiceContext, 'db'>, parts: AttestationParts) {
  const keys = await readAllIssuerKeys(ctx.db)
  return {
    token_challenge: base64url(parts.keys.challenge),
    issuer_keys: keys.map((k) => ({
      token_key_id: k.token_key_id.toString('hex'),
      token_key: base64url(k.token_key),
      not_before: k.not_before.toISOString(),
      issue_until: k.issue_until.toISOString(),
      redeem_until: k.redeem_until.toISOString(),
    })),
  }
}
