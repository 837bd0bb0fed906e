import { createHmac, randomBytes } from 'node:crypto'
import { lookup } from 'node:dns/promises'
import { request as httpRequest, type RequestOptions } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'

/**
 * The outgoing side of webhooks: secrets, Standard Webhooks signatures, name resolution and one
 * POST pinned to an address the caller checked (src/domain/webhook-address.ts), so a name that
 * resolves elsewhere a moment later (DNS rebinding) cannot redirect the connection.
 */

export const WEBHOOK_SECRET_PREFIX = 'whsec_'

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes (shown to the advertiser once). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64')
}

/** Standard Webhooks `webhook-signature`: `v1,` + base64 HMAC-SHA256, keyed by the secret's decoded bytes, of `id.timestamp.body`. */
export function signWebhook(secret: string, messageId: string, timestampS: number, body: string): string {
  const key = Buffer.from(secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret, 'base64')
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampS}.${body}`).digest('base64')}`
}

export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Every address a host name resolves to (the system resolver, as connections use). */
export async function resolveHost(hostname: string): Promise<ResolvedAddress[]> {
  const found = await lookup(hostname, { all: true, verbatim: true })
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

export interface PinnedPost {
  url: URL
  /** The checked address the connection must go to, whatever the name resolves to now. */
  pinned: ResolvedAddress
  headers: Record<string, string>
  body: string
  /** Connection, request and response together must finish within this. */
  timeoutMs: number
  /** Aborts the attempt (shutdown). */
  signal?: AbortSignal
}

/** How much of a receiver's answer is read (and discarded) before the connection is closed. */
const RESPONSE_READ_LIMIT = 64 * 1024

/**
 * One POST to `url`, connected to `pinned` only (TLS still verifies the certificate against the
 * URL's host name); never follows a redirect. Answers the status code, or throws with a short,
 * loggable reason (`timeout`, the socket error's code).
 */
export function postPinned(post: PinnedPost): Promise<number> {
  const pinnedLookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: post.pinned.address, family: post.pinned.family }])
    else callback(null, post.pinned.address, post.pinned.family)
  }
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
    lookup: pinnedLookup,
    agent: false,
    signal: post.signal,
  }
  const send = post.url.protocol === 'https:' ? httpsRequest : httpRequest
  return new Promise<number>((resolve, reject) => {
    const req = send(post.url, options, (res) => {
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > RESPONSE_READ_LIMIT) res.destroy()
      })
      res.on('close', () => {
        clearTimeout(timer)
        resolve(res.statusCode ?? 0)
      })
      res.on('error', () => {})
    })
    const timer = setTimeout(() => req.destroy(new WebhookSendError('timeout')), post.timeoutMs)
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(err instanceof WebhookSendError ? err : new WebhookSendError(err.name === 'AbortError' ? 'aborted' : (err.code ?? err.message)))
    })
    req.end(post.body)
  })
}

/** Why an attempt got no HTTP answer; `message` is safe to log and show (no secrets, no body). */
export class WebhookSendError extends Error {}
