/**
 * The Privacy Pass issuer keys a deployment publishes in `/transparency.json` (issue 48): every key it
 * ever issued with (`issuer_keys`, newest first) and its one token challenge (`token_challenge`, the
 * serialized RFC 9577 TokenChallenge, base64url). Read field by field: the document is outside the typed
 * /v1 API. No crypto here, so the client can read the keys without loading the Privacy Pass library.
 */
import { ApiError } from './errors.js'

export interface IssuerKey {
  /** Lowercase hex SHA-256 of the key's SPKI bytes (the token_key_id inside a token, RFC 9578). */
  token_key_id: string
  /** The RSASSA-PSS SubjectPublicKeyInfo, base64url (RFC 9578 section 4). */
  token_key: string
  not_before: string
  issue_until: string
  /** Tokens of this key are redeemed until then. */
  redeem_until: string
}

export interface PublishedTokenKeys {
  issuer_keys: IssuerKey[]
  /** The deployment's TokenChallenge, base64url. */
  token_challenge: string
}

const bad = (message: string) => new ApiError(200, `/transparency.json: ${message}`, { reason: 'bad_transparency_log' })

/** The `issuer_keys` and `token_challenge` of a `/transparency.json` document (parsed JSON), checked. */
export function publishedTokenKeys(body: unknown): PublishedTokenKeys {
  if (typeof body !== 'object' || body === null) throw bad('not a JSON object')
  const keys = 'issuer_keys' in body ? body.issuer_keys : undefined
  const challenge = 'token_challenge' in body ? body.token_challenge : undefined
  if (!Array.isArray(keys)) throw bad('no issuer_keys list (a service from before attested views?)')
  if (typeof challenge !== 'string' || challenge === '') throw bad('no token_challenge')
  return { issuer_keys: keys.map(issuerKey), token_challenge: challenge }
}

function issuerKey(k: unknown): IssuerKey {
  if (typeof k === 'object' && k !== null && 'token_key_id' in k && 'token_key' in k && 'not_before' in k && 'issue_until' in k && 'redeem_until' in k) {
    const { token_key_id, token_key, not_before, issue_until, redeem_until } = k
    if (typeof token_key_id === 'string' && typeof token_key === 'string' && typeof not_before === 'string' && typeof issue_until === 'string' && typeof redeem_until === 'string') {
      return { token_key_id, token_key, not_before, issue_until, redeem_until }
    }
  }
  throw bad(`a malformed issuer key: ${JSON.stringify(k)}`)
}

/**
 * GET `{origin}/transparency.json` without credentials (the log is public): the published keys and
 * challenge. `origin` is the service (`https://ads.example.com`) or its API (`…/v1`). `ApiError` status
 * 0 when nothing answered, the answer's status when it was not 200.
 */
export async function fetchTokenKeys(origin: string, options: { fetch?: typeof globalThis.fetch; timeoutMs?: number } = {}): Promise<PublishedTokenKeys> {
  const url = `${origin.replace(/\/+$/, '').replace(/\/v1$/, '')}/transparency.json`
  const timeoutMs = options.timeoutMs ?? 30_000
  let response: Response
  try {
    response = await (options.fetch ?? globalThis.fetch)(url, { signal: AbortSignal.timeout(timeoutMs) })
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
    const why = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)
    throw new ApiError(0, timedOut ? `no answer from ${url} within ${timeoutMs} ms` : `could not reach ${url}: ${why}`, { reason: timedOut ? 'timeout' : 'network_error', cause: error })
  }
  if (!response.ok) throw new ApiError(response.status, `${url} answered ${response.status}`, { reason: `http_${response.status}` })
  let body: unknown
  try {
    body = await response.json()
  } catch {
    throw bad('not JSON')
  }
  return publishedTokenKeys(body)
}
