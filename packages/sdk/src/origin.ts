import { ApiError } from './errors.js'

/**
 * Where the client may send its credentials: the base URL's origin and nowhere else.
 *
 * - A redirect is followed only within that origin (scheme, host and port); a redirect anywhere
 *   else is refused before anything is sent there (`cross_origin_redirect`), since fetch would
 *   resend `X-Service-Api-Key` to the new host.
 * - Plain `http://` is taken only to a loopback host (the service on this machine), unless the
 *   caller says otherwise (`allowInsecureHttp`): the key would cross the network unencrypted.
 */

/** Redirects followed in a row before giving up (fetch's own limit). */
export const MAX_REDIRECTS = 20

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

/** `localhost`, 127.0.0.0/8 and ::1: the hosts an `http://` URL may name without `allowInsecureHttp`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  if (host === 'localhost' || host === '[::1]') return true
  const octets = host.split('.')
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255)
}

/**
 * Why a client for `baseUrl` would not be made, or null: not an http(s) URL, or plain http to a
 * host that is not loopback without `allowInsecureHttp`. `flag` names the setting that allows it
 * (`allowInsecureHttp: true`, or adctl's `--insecure-http`).
 */
export function baseUrlProblem(baseUrl: string, allowInsecureHttp: boolean, flag = 'allowInsecureHttp: true'): string | null {
  let url: URL
  try {
    url = new URL(baseUrl)
  } catch {
    return `${JSON.stringify(baseUrl)} is not a URL (expected https://host or http://127.0.0.1:port)`
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url.protocol} URLs are not supported (expected https:// or http://)`
  if (url.username || url.password) return 'the service URL must not carry a user name or password'
  if (url.protocol === 'http:' && !allowInsecureHttp && !isLoopbackHost(url.hostname)) {
    return `refusing plain http:// to ${url.host}: the API key would cross the network unencrypted. Use https://, or pass ${flag} to send it anyway`
  }
  return null
}

/**
 * Sends `request` with `fetchImpl`, following redirects only within `origin`. The body is read
 * once so that a 307/308 can send it again; a 303 (and a 301/302 of a POST, as fetch does) goes
 * on as a GET without it. A redirect to another origin throws `ApiError` (reason
 * `cross_origin_redirect`), and nothing is sent there.
 */
export async function fetchWithinOrigin(fetchImpl: typeof globalThis.fetch, request: Request, origin: string): Promise<Response> {
  let body = request.body === null ? undefined : await request.arrayBuffer()
  let method = request.method
  let url = request.url
  const headers = new Headers(request.headers)
  for (let hop = 0; ; hop++) {
    const response = await fetchImpl(new Request(url, { method, headers, body, signal: request.signal, redirect: 'manual' }))
    // A browser hides a redirect's target: follow none there, rather than let it go anywhere.
    if (response.type === 'opaqueredirect') {
      throw new ApiError(0, `${method} ${url} was redirected, and a browser does not show where to; the client follows redirects only within ${origin}`, {
        reason: 'cross_origin_redirect',
      })
    }
    const location = REDIRECT_STATUSES.has(response.status) ? response.headers.get('location') : null
    if (location === null) return response
    const next = new URL(location, url)
    await response.body?.cancel()
    const requestId = response.headers.get('x-request-id')
    if (next.origin !== origin) {
      throw new ApiError(response.status, `${method} ${url} was redirected (${response.status}) to ${next.origin}, another origin than ${origin}: not followed, and the credentials were not sent there`, {
        reason: 'cross_origin_redirect',
        requestId,
      })
    }
    if (hop >= MAX_REDIRECTS) throw new ApiError(response.status, `more than ${MAX_REDIRECTS} redirects from ${request.url}`, { reason: 'too_many_redirects', requestId })
    if (response.status === 303 ? method !== 'HEAD' : (response.status === 301 || response.status === 302) && method === 'POST') {
      method = 'GET'
      body = undefined
      headers.delete('content-type')
      headers.delete('content-length')
    }
    url = next.href
  }
}
