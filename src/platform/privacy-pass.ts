import { constants, createHash, createPrivateKey, createPublicKey, privateDecrypt, publicEncrypt, verify, type KeyObject } from 'node:crypto'
import { publicVerif, TokenChallenge, util } from '@cloudflare/privacypass-ts'

/**
 * Privacy Pass, publicly verifiable tokens (RFC 9578 section 6: token type 0x0002, Blind RSA 2048,
 * RSABSSA-SHA384-PSS-Deterministic), as this service issues and redeems them (docs/attestation.md).
 * Issuance (the blind signature) is `@cloudflare/privacypass-ts`'s; redemption checks the token's
 * RSA-PSS signature with node:crypto, which is what the library's `verifyToken` computes, at a
 * fraction of its cost (WebCrypto's import per call): test/unit/privacy-pass.test.ts runs both
 * against RFC 9578's test vectors.
 */

export const TOKEN_TYPE = 0x0002
/** Nk: the RSA modulus, the authenticator and the blind signature are 256 bytes. */
const NK = 256
const NONCE_BYTES = 32
const DIGEST_BYTES = 32
const KEY_ID_BYTES = 32
/** token_type, nonce, challenge_digest, token_key_id: what the authenticator signs. */
const INPUT_BYTES = 2 + NONCE_BYTES + DIGEST_BYTES + KEY_ID_BYTES
export const TOKEN_BYTES = INPUT_BYTES + NK
/** A TokenRequest: token_type, truncated_token_key_id, blinded_msg. */
export const TOKEN_REQUEST_BYTES = 2 + 1 + NK
const { BlindRSAMode, Issuer } = publicVerif

/**
 * A copy in a buffer of its own: the library reads its inputs through `bytes.buffer` from offset 0,
 * and a Node Buffer is often a slice of a shared pool.
 */
const own = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes)

/** An issuer key as stored: the public key in RFC 9578's encoding (SPKI with the RSASSA-PSS OID) and the private key (PKCS#8 DER). */
export interface IssuerKeyPair {
  tokenKey: Buffer
  privateKey: Buffer
}

/** A fresh RSA 2048 issuer key (a few hundred milliseconds of CPU). */
export async function generateIssuerKey(): Promise<IssuerKeyPair> {
  const { publicKey, privateKey } = await Issuer.generateKey(BlindRSAMode.PSS, { modulusLength: 2048, publicExponent: Uint8Array.from([1, 0, 1]) })
  const tokenKey = Buffer.from(await publicVerif.getPublicKeyBytes(publicKey))
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', privateKey))
  return { tokenKey, privateKey: pkcs8 }
}

/** token_key_id: SHA-256 of the public key's RFC 9578 encoding. */
export const tokenKeyId = (tokenKey: Buffer): Buffer => createHash('sha256').update(tokenKey).digest()

/** The deployment's challenge (RFC 9577 section 2.1): type 0x0002, `issuerName` as issuer and origin, empty redemption context. */
export function tokenChallenge(issuerName: string): Buffer {
  return Buffer.from(new TokenChallenge(TOKEN_TYPE, issuerName, new Uint8Array(0), [issuerName]).serialize())
}

/** base64url with its padding, as the client library (rfc4648's strict parser) reads it; readers here take it with or without. */
export const base64url = (bytes: Uint8Array): string => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')
  return text + '='.repeat((4 - (text.length % 4)) % 4)
}

/** The `WWW-Authenticate` value naming the challenge and the issuing key (RFC 9577 section 2.1). */
export const wwwAuthenticate = (challenge: Buffer, tokenKey: Buffer): string =>
  `PrivateToken challenge="${base64url(challenge)}", token-key="${base64url(tokenKey)}"`

/**
 * The issuer's side of one issuance (RFC 9578 section 6.2): the blind signature of a TokenRequest's
 * `blinded_msg`, which is RFC 9474's BlindSign (section 4.3): s = RSASP1(sk, m), then m' = RSAVP1(pk, s)
 * must equal m (a faulty signature would leak the key), output in 256 bytes. Both steps are node:crypto's
 * raw RSA (OpenSSL, with CRT; it refuses m >= n). The client library's Issuer computes the same bytes in
 * JavaScript big-number arithmetic at about 570 ms of CPU a token against 1.6 ms here
 * (docs/decisions/0475-blind-signatures-with-node-crypto.md); test/unit/privacy-pass.test.ts checks the two
 * agree and match RFC 9578's vectors.
 */
export class BlindSigner {
  readonly #privateKey: KeyObject
  readonly #publicKey: KeyObject
  readonly truncatedKeyId: number

  constructor(pair: IssuerKeyPair) {
    this.truncatedKeyId = tokenKeyId(pair.tokenKey)[KEY_ID_BYTES - 1]!
    this.#privateKey = createPrivateKey({ key: pair.privateKey, format: 'der', type: 'pkcs8' })
    this.#publicKey = createPublicKey(this.#privateKey)
  }

  /** The TokenResponse's bytes, or why the request is refused. */
  sign(request: Buffer): { response: Buffer } | { refused: 'malformed' | 'unknown_key' } {
    if (request.length !== TOKEN_REQUEST_BYTES || request.readUInt16BE(0) !== TOKEN_TYPE) return { refused: 'malformed' }
    if (request[2] !== this.truncatedKeyId) return { refused: 'unknown_key' }
    const blinded = request.subarray(3)
    let signature: Buffer
    try {
      signature = privateDecrypt({ key: this.#privateKey, padding: constants.RSA_NO_PADDING }, blinded)
    } catch {
      return { refused: 'malformed' } // m >= n: not a blinded message of this key
    }
    const check = publicEncrypt({ key: this.#publicKey, padding: constants.RSA_NO_PADDING }, signature)
    if (!check.equals(blinded)) throw new Error('blind signature failed its own verification')
    return { response: signature }
  }
}

/** A token's parts (RFC 9578 section 6.3 and RFC 9577 section 2.2). */
export interface ParsedToken {
  bytes: Buffer
  nonce: Buffer
  challengeDigest: Buffer
  keyId: Buffer
}

/** The token's parts, or null when it is not a type 0x0002 token of the right length. */
export function parseToken(bytes: Buffer): ParsedToken | null {
  if (bytes.length !== TOKEN_BYTES || bytes.readUInt16BE(0) !== TOKEN_TYPE) return null
  return {
    bytes,
    nonce: bytes.subarray(2, 2 + NONCE_BYTES),
    challengeDigest: bytes.subarray(2 + NONCE_BYTES, 2 + NONCE_BYTES + DIGEST_BYTES),
    keyId: bytes.subarray(2 + NONCE_BYTES + DIGEST_BYTES, INPUT_BYTES),
  }
}

/** The public key of one issuer key, ready to check tokens' signatures. */
export function verifierKey(tokenKey: Buffer): KeyObject {
  return createPublicKey({ key: Buffer.from(util.convertRSASSAPSSToEnc(own(tokenKey))), format: 'der', type: 'spki' })
}

/** Whether `token`'s authenticator is `key`'s RSASSA-PSS (SHA-384, 48-byte salt) signature of its first 98 bytes. */
export function signatureValid(token: ParsedToken, key: KeyObject): boolean {
  return verify('sha384', token.bytes.subarray(0, INPUT_BYTES), { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 }, token.bytes.subarray(INPUT_BYTES))
}

/**
 * The token of an `Authorization: PrivateToken token="…"` header (RFC 9577 section 2.2), or:
 * null when the header names no PrivateToken; 'malformed' when it does but the value does not decode.
 */
export function tokenOfAuthorization(header: string | undefined): Buffer | 'malformed' | null {
  if (header === undefined) return null
  const match = /^\s*PrivateToken\s+(.*)$/is.exec(header)
  if (!match) return null
  const param = /(?:^|,)\s*token\s*=\s*(?:"([A-Za-z0-9_\-+/=]*)"|([A-Za-z0-9_\-+/=]*))\s*(?:,|$)/i.exec(match[1]!)
  const value = param?.[1] ?? param?.[2]
  if (!value) return 'malformed'
  return Buffer.from(value, 'base64url')
}
