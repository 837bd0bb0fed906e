// @ts-check
/**
 * Privacy Pass tokens for attested views (operations.md section 2, "Attested views"), whatever a
 * client keeps them in (the terminal: `wallet.json` in its state directory, mode 0600, under its
 * state lock; the editor: VS Code's global state). With an attester (a JWT from the tool's sign-in):
 *
 * - the challenge and token key come from the `WWW-Authenticate` header of decision answers; when they
 *   change (the service rotated its key), the tokens of the old ones are dropped;
 * - tokens are fetched ahead of use, in batches: when fewer than WALLET_LOW are left, runs fetch up to
 *   TOKENS_PER_RUN each until the wallet holds WALLET_MAX, so a token is never fetched right before the
 *   view it is spent on (the issuer would see the timing);
 * - a token leaves the wallet (written) before the report that spends it is sent, and is recorded in
 *   that report (reports.js): a retry sends the same token again, and no token is ever put on two reports;
 * - 401 and 429 from the issuer, and every other failure, back off (recorded in the wallet); views
 *   are then reported without a token, as they are without an attester.
 *
 * The Privacy Pass library is imported dynamically, only when a token is made or a challenge parsed.
 */
import { exec } from 'node:child_process'

/** The wallet holds at most this many tokens. */
export const WALLET_MAX = 20
/** Below this many, the refresher starts filling the wallet again. */
export const WALLET_LOW = 5
/** Token requests per refresher run at most (each one bounded by the request timeout). */
export const TOKENS_PER_RUN = 5
/** How long an attester command (printing the JWT) may take. */
export const ATTEST_COMMAND_TIMEOUT_MS = 5_000
/** After a 401 (the attester's JWT refused): this, doubling, at most MAX_UNAUTHORIZED_BACKOFF_MS. */
export const UNAUTHORIZED_BACKOFF_MS = 5 * 60_000
export const MAX_UNAUTHORIZED_BACKOFF_MS = 6 * 60 * 60_000
/** After a 429 without a usable Retry-After. */
export const RATE_LIMITED_BACKOFF_MS = 60 * 60_000
/** After any other failure (no answer, 5xx, 400, the command failed): this, doubling, at most 30 min. */
export const ERROR_BACKOFF_MS = 30_000
export const MAX_ERROR_BACKOFF_MS = 30 * 60_000
/** A Retry-After is honoured up to a day. */
const MAX_RETRY_AFTER_MS = 24 * 60 * 60_000

/** @typedef {{ until: number, failures: number, reason: 'unauthorized' | 'rate_limited' | 'error' | 'attester' }} Backoff */
/**
 * `header` is the last WWW-Authenticate seen; `challenge` and `token_key` its parsed TokenChallenge and
 * issuer key (base64url); `tokens` base64url tokens for exactly those; `filling` while a batch is under way.
 * @typedef {{ v: 1, header: string | null, challenge: string | null, token_key: string | null, tokens: string[], filling: boolean, backoff: Backoff | null }} Wallet
 */

/**
 * Where a client keeps its wallet: `read` answers the stored value (null when none), `update` reads,
 * changes and writes it as one step (no other writer in between; undefined when that could not be
 * had, such as a lock that stayed taken). `fn` answers the new wallet (null: unchanged) and a result.
 * @typedef {{ read(): unknown, update<T>(fn: (raw: unknown) => { wallet: Wallet | null, result: T }): T | undefined }} WalletStore
 */

/** @returns {Wallet} */
const emptyWallet = () => ({ v: 1, header: null, challenge: null, token_key: null, tokens: [], filling: false, backoff: null })

/** A stored wallet, or an empty one when missing or not ours. @param {unknown} stored @returns {Wallet} */
export function parseWallet(stored) {
  const raw = /** @type {Record<string, unknown> | null} */ (stored !== null && typeof stored === 'object' ? stored : null)
  if (raw === null || raw.v !== 1) return emptyWallet()
  const text = (/** @type {unknown} */ v) => (typeof v === 'string' && v !== '' ? v : null)
  const b = /** @type {Record<string, unknown> | null} */ (raw.backoff !== null && typeof raw.backoff === 'object' ? raw.backoff : null)
  const reasons = ['unauthorized', 'rate_limited', 'error', 'attester']
  return {
    v: 1,
    header: text(raw.header),
    challenge: text(raw.challenge),
    token_key: text(raw.token_key),
    tokens: Array.isArray(raw.tokens) ? raw.tokens.filter((t) => typeof t === 'string' && /^[A-Za-z0-9_-]+={0,2}$/.test(t)) : [],
    filling: raw.filling === true,
    backoff:
      b && typeof b.until === 'number' && typeof b.failures === 'number' && typeof b.reason === 'string' && reasons.includes(b.reason)
        ? { until: b.until, failures: b.failures, reason: /** @type {Backoff['reason']} */ (b.reason) }
        : null,
  }
}

/**
 * Read, change and write the wallet as one step (undefined when the store could not).
 * @template T @param {WalletStore} store @param {(w: Wallet) => { wallet: Wallet | null, result: T }} fn
 */
function updateWallet(store, fn) {
  return store.update((raw) => fn(parseWallet(raw)))
}

const library = () => import('@cloudflare/privacypass-ts')
const toBase64url = (/** @type {Uint8Array} */ bytes) => Buffer.from(bytes).toString('base64url')
/** A fresh buffer at offset 0: the library's parsers read `bytes.buffer` from its start. @param {string} text */
const fromBase64url = (text) => new Uint8Array(Buffer.from(text, 'base64url'))

/**
 * Records the challenge and issuer key of a decision's `WWW-Authenticate` (RFC 9577, parsed by the
 * library); a new key or challenge drops the tokens made for the old ones. True when they changed.
 * @param {WalletStore} store @param {string} header
 */
export async function noteChallenge(store, header) {
  if (parseWallet(store.read()).header === header) return false
  const pp = await library()
  let found
  try {
    found = pp.WWWAuthenticateHeader.parse(header).find((h) => h.challenge.tokenType === pp.TOKEN_TYPES.BLIND_RSA.value)
  } catch {
    return false
  }
  if (!found) return false
  const challenge = toBase64url(found.challenge.serialize())
  const tokenKey = toBase64url(found.tokenKey)
  return (
    updateWallet(store, (w) => {
      const same = w.challenge === challenge && w.token_key === tokenKey
      return { wallet: same ? { ...w, header } : { ...w, header, challenge, token_key: tokenKey, tokens: [], filling: true }, result: !same }
    }) ?? false
  )
}

/**
 * Takes one token out of the wallet, written before the caller uses it (so it is never handed out
 * twice, even by two senders); null when the wallet is empty or busy.
 * @param {WalletStore} store @returns {string | null}
 */
export function takeToken(store) {
  return (
    updateWallet(store, (w) => {
      const [token, ...rest] = w.tokens
      return token === undefined ? { wallet: null, result: null } : { wallet: { ...w, tokens: rest }, result: token }
    }) ?? null
  )
}

/**
 * Ends a back-off that a new attester deserves a fresh try after (its JWT was refused, none was
 * given, a request failed); a 429's stays, since the account's allowance is the same whoever asks.
 * @param {WalletStore} store
 */
export function clearBackoff(store) {
  updateWallet(store, (w) => ({ wallet: w.backoff && w.backoff.reason !== 'rate_limited' ? { ...w, backoff: null } : null, result: null }))
}

/** Could this be a JWT (base64url parts and dots; nothing a header could be split on)? @param {string} text */
export const looksLikeJwt = (text) => /^[A-Za-z0-9._~+/=-]+$/.test(text)

/**
 * The JWT an attester command prints: its stdout, trimmed (run by the shell, bounded in time and
 * size). Null when the command fails or prints nothing that could be a JWT. Never logged or stored.
 * @param {string} command @returns {Promise<string | null>}
 */
export function commandJwt(command) {
  return new Promise((resolve) => {
    exec(command, { timeout: ATTEST_COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024, windowsHide: true }, (error, stdout) => {
      const jwt = String(stdout).trim()
      resolve(error || !looksLikeJwt(jwt) ? null : jwt)
    })
  })
}

/** Milliseconds a Retry-After asks for (seconds or an HTTP date), or null. @param {string | null} value @param {number} now */
function retryAfterMs(value, now) {
  if (value === null) return null
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1_000 : Date.parse(value) - now
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, MAX_RETRY_AFTER_MS) : null
}

/** @param {Backoff['reason']} reason @param {Backoff | null} previous @param {number} now @param {number | null} retryAfter @returns {Backoff} */
function backoffAfter(reason, previous, now, retryAfter) {
  const failures = (previous?.reason === reason ? previous.failures : 0) + 1
  const doubling = (/** @type {number} */ base, /** @type {number} */ max) => Math.min(max, base * 2 ** (failures - 1))
  const wait =
    reason === 'unauthorized'
      ? doubling(UNAUTHORIZED_BACKOFF_MS, MAX_UNAUTHORIZED_BACKOFF_MS)
      : reason === 'rate_limited'
        ? (retryAfter ?? RATE_LIMITED_BACKOFF_MS)
        : doubling(ERROR_BACKOFF_MS, MAX_ERROR_BACKOFF_MS)
  return { until: now + wait, failures, reason }
}

/**
 * One run's share of filling the wallet: nothing unless the challenge is known, no back-off is running
 * and the wallet is low (or a batch is under way); then the attester's JWT (`jwt`: null when it has
 * none to give) and at most TOKENS_PER_RUN token requests (RFC 9578, one token each,
 * `Authorization: Bearer <JWT>`), each within `timeoutMs`. What happened, for tests and the caller.
 * @param {WalletStore} store @param {() => Promise<string | null>} attesterJwt @param {string} baseUrl @param {() => number} clock @param {number} timeoutMs
 * @returns {Promise<{ minted: number, outcome: 'idle' | 'ok' | Backoff['reason'] }>}
 */
export async function topUp(store, attesterJwt, baseUrl, clock, timeoutMs) {
  const start = parseWallet(store.read())
  const idle = { minted: 0, outcome: /** @type {const} */ ('idle') }
  if (!start.challenge || !start.token_key) return idle
  if (start.backoff && clock() < start.backoff.until) return idle
  if (start.tokens.length >= WALLET_MAX || (!start.filling && start.tokens.length >= WALLET_LOW)) return idle
  const { challenge: challengeText, token_key: keyText } = start

  /** @type {string[]} */
  const minted = []
  /** @type {'ok' | Backoff['reason']} */
  let outcome = 'ok'
  /** @type {number | null} */
  let retryAfter = null
  let jwt = null
  try {
    jwt = await attesterJwt()
  } catch {
    jwt = null
  }
  if (jwt === null) outcome = 'attester'
  else {
    const pp = await library()
    const { Client, BlindRSAMode } = pp.publicVerif
    const challenge = pp.TokenChallenge.deserialize(fromBase64url(challengeText))
    const tokenKey = fromBase64url(keyText)
    while (minted.length < TOKENS_PER_RUN && start.tokens.length + minted.length < WALLET_MAX) {
      try {
        const client = new Client(BlindRSAMode.PSS)
        const request = await client.createTokenRequest(challenge, tokenKey)
        const res = await fetch(`${baseUrl}/serve/v1/token-requests`, {
          method: 'POST',
          headers: { 'content-type': 'application/private-token-request', accept: 'application/private-token-response', authorization: `Bearer ${jwt}` },
          body: Buffer.from(request.serialize()),
          signal: AbortSignal.timeout(timeoutMs),
        })
        const body = new Uint8Array(await res.arrayBuffer())
        if (res.status === 401) outcome = 'unauthorized'
        else if (res.status === 429) {
          outcome = 'rate_limited'
          retryAfter = retryAfterMs(res.headers.get('retry-after'), clock())
        } else if (res.status !== 200) outcome = 'error'
        if (outcome !== 'ok') break
        // finalize checks the issuer's signature: an answer that is not one throws.
        minted.push(toBase64url((await client.finalize(client.deserializeTokenResponse(body))).serialize()))
      } catch {
        outcome = 'error'
        break
      }
    }
  }

  updateWallet(store, (w) => {
    // Tokens made for a challenge or key the wallet no longer holds are dropped.
    const kept = w.challenge === challengeText && w.token_key === keyText ? minted : []
    const tokens = [...w.tokens, ...kept].slice(0, WALLET_MAX)
    const backoff = outcome === 'ok' ? null : backoffAfter(outcome, w.backoff, clock(), retryAfter)
    return { wallet: { ...w, tokens, filling: tokens.length < WALLET_MAX, backoff }, result: null }
  })
  return { minted: minted.length, outcome }
}

/**
 * A wallet store for a client with one process (the editor's extension host): the wallet in memory,
 * `save` called with each new one (the client keeps it across restarts), `initial` what it kept.
 * @param {{ initial?: unknown, save?: (wallet: Wallet) => void }} [o] @returns {WalletStore}
 */
export function memoryWalletStore({ initial = null, save = () => {} } = {}) {
  /** @type {unknown} */
  let stored = initial
  return {
    read: () => stored,
    update(fn) {
      const { wallet, result } = fn(stored)
      if (wallet) {
        stored = wallet
        save(wallet)
      }
      return result
    },
  }
}
