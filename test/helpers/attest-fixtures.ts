/**
 * Real Privacy Pass material for the clients' tests (issue 48): an issuer with a fresh RSA-2048 key
 * (`@cloudflare/privacypass-ts`, the library the service uses), tokens issued through its Client and
 * Issuer for a challenge, and ledger-export-v4-shaped CSV text around them. Nothing here is a stand-in
 * for the cryptography: every token is what a real client gets from a real issuer.
 */
import { createHash } from 'node:crypto'
import { publicVerif, TokenChallenge, WWWAuthenticateHeader } from '@cloudflare/privacypass-ts'
import { csvLine, V3_COLUMNS } from '../../src/domain/export-csv.ts'
import { BlindSigner } from '../../src/platform/privacy-pass.ts'

const { BlindRSAMode, Client, Issuer, getPublicKeyBytes } = publicVerif

export const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
export const sha256Hex = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** The deployment's challenge as operations.md section 2 fixes it: issuer and origin = host[:port], empty redemption context. */
export const challengeFor = (host: string) => new TokenChallenge(0x0002, host, new Uint8Array(), [host])

export interface TestIssuer {
  issuer: InstanceType<typeof Issuer>
  /** The RSASSA-PSS SPKI (RFC 9578 section 4), its base64url and its id (hex SHA-256). */
  spki: Uint8Array
  tokenKey: string
  tokenKeyId: string
  /**
   * The blind signature of a TokenRequest's bytes (its TokenResponse), as the service signs: node:crypto's
   * raw RSA (src/platform/privacy-pass.ts#BlindSigner, checked against RFC 9578's vectors and the library's
   * Issuer in test/unit/privacy-pass.test.ts). The library's Issuer takes about 570 ms of CPU a token, so
   * a test server signing with it missed the clients' 3 s timeout under load (a flaky wallet test).
   */
  sign: (request: Uint8Array) => Buffer
  /** `/transparency.json`'s entry for this key. */
  published: (window?: Partial<{ not_before: string; issue_until: string; redeem_until: string }>) => {
    token_key_id: string
    token_key: string
    not_before: string
    issue_until: string
    redeem_until: string
  }
}

export async function makeIssuer(host = 'ads.test:8080'): Promise<TestIssuer> {
  const pair = await Issuer.generateKey(BlindRSAMode.PSS, { modulusLength: 2048, publicExponent: Uint8Array.from([1, 0, 1]) })
  const issuer = new Issuer(BlindRSAMode.PSS, host, pair.privateKey, pair.publicKey)
  const spki = await getPublicKeyBytes(pair.publicKey)
  const tokenKey = b64url(spki)
  const tokenKeyId = sha256Hex(spki)
  const signer = new BlindSigner({ tokenKey: Buffer.from(spki), privateKey: Buffer.from(await crypto.subtle.exportKey('pkcs8', pair.privateKey)) })
  return {
    issuer,
    spki,
    tokenKey,
    tokenKeyId,
    sign: (request) => {
      const signed = signer.sign(Buffer.from(request))
      if ('refused' in signed) throw new Error(`the test issuer refused a token request: ${signed.refused}`)
      return signed.response
    },
    published: (window = {}) => ({
      token_key_id: tokenKeyId,
      token_key: tokenKey,
      not_before: '2026-01-01T00:00:00.000Z',
      issue_until: '2099-01-01T00:00:00.000Z',
      redeem_until: '2099-02-01T00:00:00.000Z',
      ...window,
    }),
  }
}

/** `WWW-Authenticate` of a decision answer for this challenge and key (RFC 9577, as the service sends it). */
export const wwwAuthenticate = (challenge: TokenChallenge, spki: Uint8Array) => new WWWAuthenticateHeader(challenge, spki).toString(true)

/** One token, issued the way a client gets it: a blinded request, the issuer's blind signature, finalized. */
export async function mintToken(t: TestIssuer, challenge: TokenChallenge): Promise<Uint8Array> {
  const client = new Client(BlindRSAMode.PSS)
  const request = await client.createTokenRequest(challenge, t.spki)
  const response = new publicVerif.TokenResponse(new Uint8Array(t.sign(request.serialize())))
  return (await client.finalize(response)).serialize()
}

export const V4_COLUMNS = [...V3_COLUMNS, 'attestation_token']

/** A ledger-export-v4 CSV: one billable impression per token given ('' for an unattested row), then a non-billable view. */
export function v4Csv(tokens: string[], day = '2026-11-02'): string {
  const rows = tokens.map((token, i) => [`${day}T09:00:${String(i % 60).padStart(2, '0')}.000Z`, 'impression', 'cmp_a', 'crv_a', 'terminal', '', 'true', '3700', '', '', token])
  rows.push([`${day}T10:00:00.000Z`, 'view', 'cmp_a', 'crv_a', 'terminal', '', 'false', '0', '', 'short_dwell', ''])
  return [V4_COLUMNS, ...rows].map(csvLine).join('')
}
