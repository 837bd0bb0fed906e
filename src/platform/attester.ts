import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createLocalJWKSet, createRemoteJWKSet, exportJWK, jwtVerify, SignJWT, type JWK, type JWTVerifyGetKey } from 'jose'
import type { AttesterSettings } from './env.ts'
import { TIMEOUTS } from './timeouts.ts'

/**
 * The attester: who vouches that a token request comes from a signed-in user of the coding tool
 * (RFC 9576's attester; docs/attestation.md). Its JWTs are checked with `jose` against its JWKS
 * (ATTESTER_JWKS_URL, cached and fetched again for an unknown `kid`, or ATTESTER_JWKS_FILE):
 * signature, `iss`, `aud`, `exp` (required), `sub` (required), and only the algorithms below.
 * ATTESTER=dev is this service's own development attester: an ES256 key kept in the store,
 * `POST /dev/attest` signs a JWT for any subject.
 */

/** Asymmetric algorithms only: `none` and the HMAC family (whose key would be the JWKS itself) are refused. */
export const ATTESTER_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA']
/** Leeway for the attester's and this service's clocks on `exp` and `nbf`. */
const CLOCK_TOLERANCE_S = 30
/** How long a development attester's JWT lives. */
const DEV_JWT_SECONDS = 3600

interface DevKey {
  key: KeyObject
  kid: string
  jwks: { keys: JWK[] }
}

export type AttesterVerdict = { subject: string; issuer: string } | { refused: string; unavailable?: true }

export class Attester {
  readonly #keys: JWTVerifyGetKey
  readonly issuer: string
  readonly audience: string
  readonly #dev: DevKey | null
  readonly #remote: boolean

  private constructor(keys: JWTVerifyGetKey, issuer: string, audience: string, dev: DevKey | null, remote: boolean) {
    this.#keys = keys
    this.issuer = issuer
    this.audience = audience
    this.#dev = dev
    this.#remote = remote
  }

  /** The attester of `settings`; for `dev`, `devKeyPkcs8` is the stored key and `publicUrl` names issuer and audience. */
  static async create(settings: AttesterSettings, publicUrl: string, devKeyPkcs8: () => Promise<Buffer>): Promise<Attester> {
    if (settings.kind === 'jwks') {
      const keys = settings.jwksUrl
        ? createRemoteJWKSet(new URL(settings.jwksUrl), { timeoutDuration: TIMEOUTS.attesterJwksMs, cooldownDuration: TIMEOUTS.attesterJwksCooldownMs, cacheMaxAge: 600_000 })
        : createLocalJWKSet(JSON.parse(readFileSync(settings.jwksFile!, 'utf8')) as { keys: JWK[] })
      return new Attester(keys, settings.issuer, settings.audience, null, settings.jwksUrl !== null)
    }
    const key = createPrivateKey({ key: await devKeyPkcs8(), format: 'der', type: 'pkcs8' })
    const jwk = { ...(await exportJWK(createPublicKey(key))), kid: 'dev-1', alg: 'ES256', use: 'sig' }
    const jwks = { keys: [jwk] }
    return new Attester(createLocalJWKSet(jwks), `${publicUrl}/dev`, publicUrl, { key, kid: 'dev-1', jwks }, false)
  }

  /** Verifies a JWT at `now` (the service clock). */
  async verify(jwt: string, now: Date): Promise<AttesterVerdict> {
    try {
      const { payload } = await jwtVerify(jwt, this.#keys, {
        issuer: this.issuer,
        audience: this.audience,
        algorithms: ATTESTER_ALGORITHMS,
        requiredClaims: ['exp', 'sub'],
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: now,
      })
      if (typeof payload.sub !== 'string' || payload.sub === '') return { refused: 'the JWT names no subject' }
      return { subject: payload.sub, issuer: this.issuer }
    } catch (err) {
      const code = (err as { code?: unknown }).code
      // The attester's key set did not answer: not the client's fault (503, not 401).
      if (code === 'ERR_JWKS_TIMEOUT' || (code === undefined && this.#remote)) return { refused: "the attester's key set could not be fetched", unavailable: true }
      return { refused: refusalOf(err) }
    }
  }

  /** The development attester's JWKS, or null for a real attester. */
  get devJwks(): { keys: JWK[] } | null {
    return this.#dev?.jwks ?? null
  }

  /** A JWT for `subject` from the development attester (null for a real one). */
  async devAttest(subject: string, now: Date): Promise<string | null> {
    if (!this.#dev) return null
    const iat = Math.floor(now.getTime() / 1000)
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: this.#dev.kid })
      .setIssuer(this.issuer)
      .setAudience(this.audience)
      .setSubject(subject)
      .setIssuedAt(iat)
      .setExpirationTime(iat + DEV_JWT_SECONDS)
      .setJti(randomUUID())
      .sign(this.#dev.key)
  }
}

/** A fresh development attester key (P-256, PKCS#8 DER). */
export const freshDevAttesterKey = (): Buffer => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'der', type: 'pkcs8' })

/** What went wrong, in words a client's developer can act on; nothing of the token is echoed. */
function refusalOf(err: unknown): string {
  const code = (err as { code?: unknown }).code
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'the attester JWT has expired'
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return `the attester JWT's claims do not match this service (${(err as { claim?: string }).claim ?? 'a claim'})`
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return 'the attester JWT uses an algorithm this service does not accept'
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return "the attester JWT's key is not in the attester's key set"
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return "the attester JWT's signature does not verify"
    default:
      return 'the attester JWT is not valid'
  }
}
