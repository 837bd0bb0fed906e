/**
 * Privacy Pass tokens for the benchmarks' attested views (docs/attestation.md), valid and unspent, made
 * in the load generator before the measured windows.
 *
 * A token (RFC 9578 section 6, type 0x0002) is its input (type, nonce, the challenge's digest, the key's
 * id) and the issuer key's RSASSA-PSS signature of it (SHA-384, MGF1-SHA-384, 48-byte salt). Blind
 * issuance (RFC 9474, RSABSSA-SHA384-PSS-Deterministic) is one way to obtain that signature without the
 * issuer seeing the input; the token that results is the same object, checked the same way. The service
 * issues one token for about 1.6 ms (PostgreSQL) to 3.3 ms (embedded) of its CPU (a JWT check, the blind
 * signature, the subject's daily count written), 250-400 tokens a second on the 2-core machine, and the
 * client library's blinding costs 35 ms a token: too slow for the tens of thousands a series spends. So
 * the generator signs them itself, with the issuer's own key read from the service's store (and opened
 * with the store's key-sealing key, as the service opens it: src/serving/issuer-keys.ts), one node:crypto
 * RSA-PSS signature a token, against the challenge and key a decision announces (`WWW-Authenticate`).
 * Every token is verified with the published key before it is kept.
 */
import { constants, createHash, createPrivateKey, randomBytes, sign, type KeyObject } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { SecretSealer } from '../../src/platform/secret-sealing.ts'
import { base64url, parseToken, signatureValid, tokenKeyId, TOKEN_TYPE, verifierKey } from '../../src/platform/privacy-pass.ts'
import { decisionRequest } from './workload.ts'

/** The deployment's challenge and issuing key, as a decision announces them. */
export interface IssuerParams {
  /** The serialized TokenChallenge (RFC 9577 section 2.1). */
  challenge: Buffer
  /** The issuing key's RFC 9578 encoding (SPKI with the RSASSA-PSS OID). */
  tokenKey: Buffer
}

/** A `WWW-Authenticate: PrivateToken challenge="…", token-key="…"` value's two parameters; null when it is not one. */
export function parseChallengeHeader(header: string | null): IssuerParams | null {
  if (header === null || !/^\s*PrivateToken\s/i.test(header)) return null
  const param = (name: string) => new RegExp(`(?:\\s|,)${name}\\s*=\\s*"?([A-Za-z0-9_\\-+/=]+)"?`, 'i').exec(header)?.[1]
  const challenge = param('challenge')
  const tokenKey = param('token-key')
  return challenge && tokenKey ? { challenge: Buffer.from(challenge, 'base64url'), tokenKey: Buffer.from(tokenKey, 'base64url') } : null
}

/**
 * The challenge and issuing key from a decision's answer (one unmeasured decision from a viewer of its
 * own). An instance reads or makes its key in the background after it starts: asked again for up to 10 s.
 */
export async function issuerParams(origin: string): Promise<IssuerParams> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const req = decisionRequest('bench-challenge')
    const res = await fetch(origin + req.path, { method: 'POST', headers: req.headers, body: req.body })
    await res.arrayBuffer()
    const params = parseChallengeHeader(res.headers.get('www-authenticate'))
    if (params) return params
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error('no decision carried WWW-Authenticate: PrivateToken (is attestation "off"?)')
}

/** Has the service make its issuing key (the issuer directory waits for it), so that it is in the store. */
export async function ensureIssuerKey(origin: string): Promise<void> {
  const res = await fetch(`${origin}/.well-known/private-token-issuer-directory`)
  const text = await res.text()
  if (res.status !== 200) throw new Error(`GET /.well-known/private-token-issuer-directory: ${res.status} ${text.slice(0, 200)}`)
}

/** One issuer key as the store holds it, opened. */
export interface IssuerKey {
  period: number
  tokenKey: Buffer
  privateKey: KeyObject
}

interface KeyRow {
  period: number
  token_key: Uint8Array
  private_key_sealed: Uint8Array
  sealing_key: string | null
}

const KEYS_SQL = `SELECT k.period, k.token_key, k.private_key_sealed, (SELECT s.value #>> '{}' FROM settings s WHERE s.key = 'key_sealing_key') AS sealing_key
  FROM privacy_pass_keys k ORDER BY k.period DESC`

/**
 * The issuer's keys in a service's store, opened with the key-sealing key the store keeps (the service
 * runs without KEY_SEALING_KEY). Where: the embedded store's directory (DATA_DIR, no service running on
 * it) or a PostgreSQL database's URL.
 */
export async function readIssuerKeys(store: { dataDir: string } | { url: string }): Promise<IssuerKey[]> {
  let rows: KeyRow[]
  if ('dataDir' in store) {
    const lite = await PGlite.create({ dataDir: `${store.dataDir}/pglite` })
    try {
      rows = (await lite.query<KeyRow>(KEYS_SQL)).rows
    } finally {
      await lite.close()
    }
  } else {
    const client = new pg.Client({ connectionString: store.url })
    await client.connect()
    try {
      rows = (await client.query<KeyRow>(KEYS_SQL)).rows
    } finally {
      await client.end()
    }
  }
  return rows.map((row) => {
    if (row.sealing_key === null) throw new Error('the store keeps no key_sealing_key (does the service run with KEY_SEALING_KEY?)')
    const sealer = new SecretSealer([{ id: 0, key: Buffer.from(row.sealing_key, 'hex') }])
    // The context src/serving/issuer-keys.ts seals a period's key under.
    const opened = sealer.open(Buffer.from(row.private_key_sealed), `privacy_pass_key:${row.period}`)
    if (opened === null) throw new Error(`the issuer key of period ${row.period} does not open with the store's key-sealing key`)
    return { period: row.period, tokenKey: Buffer.from(row.token_key), privateKey: createPrivateKey({ key: Buffer.from(opened, 'hex'), format: 'der', type: 'pkcs8' }) }
  })
}

/** The `Authorization` value a view report carries its token in (RFC 9577 section 2.2). */
export const authorizationOf = (token: Buffer): string => `PrivateToken token="${base64url(token)}"`

/** Tokens for one challenge and issuing key, signed with that key. */
export class TokenMinter {
  /** The issuing key's period (privacy_pass_keys). */
  readonly period: number
  readonly #key: KeyObject
  readonly #verifier: KeyObject
  /** The token input after its nonce: the challenge's SHA-256 and the key's id. */
  readonly #suffix: Buffer

  /** `keys`: the issuer's keys (readIssuerKeys); the one `params` names is used. */
  constructor(params: IssuerParams, keys: IssuerKey[]) {
    const key = keys.find((k) => k.tokenKey.equals(params.tokenKey))
    if (!key) throw new Error(`the announced issuing key is none of the store's ${keys.length} keys`)
    this.period = key.period
    this.#key = key.privateKey
    this.#verifier = verifierKey(params.tokenKey)
    this.#suffix = Buffer.concat([createHash('sha256').update(params.challenge).digest(), tokenKeyId(params.tokenKey)])
  }

  /** One token: a fresh nonce, the key's RSASSA-PSS signature of the input; verified with the published key. */
  token(): Buffer {
    const input = Buffer.alloc(2 + 32 + this.#suffix.length)
    input.writeUInt16BE(TOKEN_TYPE, 0)
    randomBytes(32).copy(input, 2)
    this.#suffix.copy(input, 34)
    const token = Buffer.concat([input, sign('sha384', input, { key: this.#key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 })])
    const parsed = parseToken(token)
    if (!parsed || !signatureValid(parsed, this.#verifier)) throw new Error('a minted token does not verify against the announced key')
    return token
  }

  /** `count` tokens as `Authorization` values, and the seconds it took. */
  mint(count: number): { authorizations: string[]; seconds: number } {
    const started = performance.now()
    const authorizations = Array.from({ length: count }, () => authorizationOf(this.token()))
    return { authorizations, seconds: (performance.now() - started) / 1000 }
  }
}
