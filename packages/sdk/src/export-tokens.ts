/**
 * Checks the Privacy Pass tokens of a `ledger-export-v4` file (issue 48; docs/ledger-verification.md,
 * "Attestation tokens"): every non-empty `attestation_token` is a publicly verifiable token (RFC 9578,
 * type 0x0002, Blind RSA 2048), made for one of the keys the service publishes in `/transparency.json`
 * (`issuer_keys`) and for its challenge (`token_challenge`), signed by that key, spent before the key's
 * redemption window closed, and no token's nonce repeats in the file. Answers the figures or the first
 * discrepancy, naming the row.
 *
 * The signature is checked by `@cloudflare/privacypass-ts` (RSASSA-PSS, SHA-384, salt 48, through
 * WebCrypto); the digests by `@noble/hashes`. Runs in Node 20 and browsers.
 */
import { publicVerif, Token, TOKEN_TYPES, TokenChallenge, util } from '@cloudflare/privacypass-ts'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, parseCsvLine } from './ledger-verify.js'
import type { IssuerKey } from './token-keys.js'

export const ATTESTATION_TOKEN_COLUMN = 'attestation_token'
/** RFC 9578 section 6: Blind RSA (2048-bit). */
export const TOKEN_TYPE_BLIND_RSA = 0x0002
/** token_type (2) ‖ nonce (32) ‖ challenge_digest (32) ‖ token_key_id (32) ‖ authenticator (256). */
const TOKEN_LENGTH = 2 + 32 + 32 + 32 + 256

export type TokenCheck =
  /** The file is not a ledger-export-v4 CSV. */
  | 'bad_export'
  /** The published keys or challenge are not what they claim (an id that is not the key's SHA-256, a key that does not import). */
  | 'bad_keys'
  /** Not base64url, not 354 bytes, or not token type 0x0002. */
  | 'malformed_token'
  /** Its token_key_id is none of the published keys. */
  | 'unknown_key'
  /** Its challenge digest is not SHA-256 of the published challenge. */
  | 'wrong_challenge'
  /** The key's RSA-PSS signature does not verify. */
  | 'bad_signature'
  /** The row is dated after its key's redemption window. */
  | 'key_expired'
  /** Its nonce is another row's: one token spent twice. */
  | 'repeated_nonce'

/** The row to blame: its line in the CSV text (the header is line 1) and what identifies it. */
export interface TokenRow {
  line: number
  /** The row's impression id, when the file has such a column (ledger exports carry none). */
  impression_id: string | null
  timestamp: string | null
  campaign_id: string | null
  text: string
}

export interface TokenDiscrepancy {
  kind: TokenCheck
  message: string
  row: TokenRow | null
}

export interface TokenFigures {
  /** Data rows in the file, and those with a token (every one checked). */
  rows: number
  tokens_checked: number
  /** The published keys the tokens were signed by, newest first as published, with their count. */
  keys_used: { token_key_id: string; tokens: number }[]
}

export type TokenVerifyResult = { verified: true; figures: TokenFigures } | { verified: false; discrepancy: TokenDiscrepancy }

export interface TokenVerifyOptions {
  /** `/transparency.json`'s `issuer_keys`. */
  issuerKeys: readonly IssuerKey[]
  /** `/transparency.json`'s `token_challenge` (base64url). */
  tokenChallenge: string
}

/** Strict base64url (padding optional) to bytes, or null. Each answer is a fresh buffer at offset 0, as the library's parsers need. */
export function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text)) return null
  const plain = text.replace(/=+$/, '')
  if (plain.length % 4 === 1) return null
  const binary = atob(plain.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (plain.length % 4)) % 4))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

const equalBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i])

interface KeyEntry {
  key: IssuerKey
  spki: Uint8Array
  redeemUntil: number
  crypto: Promise<CryptoKey> | null
  tokens: number
}

/** Checks every token of one ledger-export-v4 CSV text. See the module comment. */
export async function verifyExportTokens(csvText: string, options: TokenVerifyOptions): Promise<TokenVerifyResult> {
  const fail = (kind: TokenCheck, message: string, row: TokenRow | null = null): TokenVerifyResult => ({ verified: false, discrepancy: { kind, message, row } })

  // The published keys: each id must be the SHA-256 of its key (RFC 9578), or a token could name a key it was not signed by.
  const keys = new Map<string, KeyEntry>()
  for (const key of options.issuerKeys) {
    const spki = fromBase64url(key.token_key)
    if (spki === null || spki.length === 0) return fail('bad_keys', `published key ${key.token_key_id}: token_key is not base64url`)
    const id = bytesToHex(sha256(spki))
    if (id !== key.token_key_id) return fail('bad_keys', `published key ${key.token_key_id}: the SHA-256 of its token_key is ${id}`)
    keys.set(id, { key, spki, redeemUntil: Date.parse(key.redeem_until), crypto: null, tokens: 0 })
  }
  const challenge = fromBase64url(options.tokenChallenge)
  let challengeType: number | null = null
  try {
    challengeType = challenge === null ? null : TokenChallenge.deserialize(challenge).tokenType
  } catch {
    challengeType = null
  }
  if (challenge === null || challengeType !== TOKEN_TYPE_BLIND_RSA) return fail('bad_keys', 'the published token_challenge is not a base64url TokenChallenge of token type 0x0002')
  const challengeDigest = sha256(challenge)

  if (csvText.length > 0 && !csvText.endsWith('\r\n')) return fail('bad_export', 'the last line does not end in CRLF')
  const lines = csvText.split('\r\n').slice(0, -1)
  let header: string[]
  try {
    header = parseCsvLine(lines[0] ?? '')
  } catch (e) {
    return fail('bad_export', `the header: ${e instanceof Error ? e.message : String(e)}`)
  }
  const column = (name: string) => header.indexOf(name)
  const tokenAt = column(ATTESTATION_TOKEN_COLUMN)
  if (tokenAt < 0) return fail('bad_export', `not a ledger-export-v4 file: no ${ATTESTATION_TOKEN_COLUMN} column (header ${JSON.stringify(lines[0] ?? '')})`)
  const [impressionAt, timestampAt, campaignAt] = [column('impression_id'), column('timestamp'), column('campaign_id')]

  const origin = new publicVerif.Origin(publicVerif.BlindRSAMode.PSS)
  const nonces = new Map<string, number>()
  let checked = 0
  for (let i = 1; i < lines.length; i++) {
    const text = lines[i] ?? ''
    let values: string[]
    try {
      values = parseCsvLine(text)
    } catch (e) {
      return fail('bad_export', `line ${i + 1}: ${e instanceof Error ? e.message : String(e)}`, { line: i + 1, impression_id: null, timestamp: null, campaign_id: null, text })
    }
    const value = (at: number) => (at < 0 ? null : (values[at] ?? null))
    const row: TokenRow = { line: i + 1, impression_id: value(impressionAt), timestamp: value(timestampAt), campaign_id: value(campaignAt), text }
    if (values.length !== header.length) return fail('bad_export', `line ${i + 1} has ${values.length} fields, the header ${header.length}`, row)
    const encoded = values[tokenAt] ?? ''
    if (encoded === '') continue
    checked++

    const bytes = fromBase64url(encoded)
    if (bytes === null) return fail('malformed_token', 'the token is not base64url', row)
    if (bytes.length !== TOKEN_LENGTH) return fail('malformed_token', `the token is ${bytes.length} bytes, a type 0x0002 token ${TOKEN_LENGTH}`, row)
    const type = (bytes[0]! << 8) | bytes[1]!
    if (type !== TOKEN_TYPE_BLIND_RSA) return fail('malformed_token', `token type 0x${type.toString(16).padStart(4, '0')}, not 0x0002 (Blind RSA 2048)`, row)
    const token = Token.deserialize(TOKEN_TYPES.BLIND_RSA, bytes)

    const keyId = bytesToHex(token.authInput.tokenKeyId)
    const entry = keys.get(keyId)
    if (!entry) return fail('unknown_key', `token_key_id ${keyId} is none of the ${keys.size} published issuer keys`, row)
    if (!equalBytes(token.authInput.challengeDigest, challengeDigest)) {
      return fail('wrong_challenge', `the token was made for another challenge (digest ${bytesToHex(token.authInput.challengeDigest)}), not this service's`, row)
    }
    entry.crypto ??= crypto.subtle.importKey('spki', new Uint8Array(util.convertRSASSAPSSToEnc(entry.spki)), TOKEN_TYPES.BLIND_RSA.rsaParams, false, ['verify'])
    let publicKey: CryptoKey
    try {
      publicKey = await entry.crypto
    } catch (e) {
      return fail('bad_keys', `published key ${keyId} is not an RSA public key: ${e instanceof Error ? e.message : String(e)}`, row)
    }
    if (!(await origin.verify(token, publicKey))) return fail('bad_signature', `the RSA-PSS signature does not verify under key ${keyId}`, row)
    const at = row.timestamp === null ? Number.NaN : Date.parse(row.timestamp)
    if (Number.isFinite(at) && Number.isFinite(entry.redeemUntil) && at > entry.redeemUntil) {
      return fail('key_expired', `the row is dated ${row.timestamp}, after key ${keyId} stopped redeeming (${entry.key.redeem_until})`, row)
    }
    const nonce = bytesToHex(token.authInput.nonce)
    const first = nonces.get(nonce)
    if (first !== undefined) return fail('repeated_nonce', `the token's nonce is line ${first}'s: one token counted twice`, row)
    nonces.set(nonce, i + 1)
    entry.tokens++
  }
  return {
    verified: true,
    figures: {
      rows: Math.max(0, lines.length - 1),
      tokens_checked: checked,
      keys_used: [...keys.values()].filter((e) => e.tokens > 0).map((e) => ({ token_key_id: e.key.token_key_id, tokens: e.tokens })),
    },
  }
}
