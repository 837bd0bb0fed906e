/**
 * Which requests are a browser asking for a page (issue 36): `routes/public/not-found.ts` answers
 * them an HTML 404, and `plugins/input-guard.ts` redirects them from a non-canonical path (issue 51).
 */

/** Paths that answer JSON whatever the Accept header says. */
const API_PREFIXES = ['/v1', '/admin/v1', '/serve']

export const underApi = (url: string) => API_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`) || url.startsWith(`${p}?`))

/** The quality an Accept header gives a media type (exact match only; 0 when absent). */
function quality(accept: string, type: string): number {
  let q = 0
  for (const part of accept.split(',')) {
    const [media, ...params] = part.split(';').map((s) => s.trim().toLowerCase())
    if (media !== type) continue
    const qParam = params.find((p) => p.startsWith('q='))
    const value = qParam === undefined ? 1 : Number(qParam.slice(2))
    if (Number.isFinite(value)) q = Math.max(q, value)
  }
  return q
}

/** A browser's request for a page: text/html named, and not ranked below JSON (curl's and fetch's `*\/*` is not). */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined) return false
  const html = quality(accept, 'text/html')
  return html > 0 && html >= quality(accept, 'application/json')
}

/**
 * Where a browser asking for a page at a path with empty segments (`/portal/billing/`,
 * `/portal//billing`) is sent: the same path without them, the query kept. Null for anything else:
 * API clients and every path under the APIs keep the strict JSON 404, and only GET and HEAD are
 * redirected (a form's POST to a wrong address is not replayed elsewhere). The path always starts
 * with one slash, so the redirect stays on this site.
 */
export function canonicalPageUrl(method: string, url: string, accept: string | undefined): string | null {
  if ((method !== 'GET' && method !== 'HEAD') || underApi(url) || !prefersHtml(accept)) return null
  const at = url.indexOf('?')
  const path = at === -1 ? url : url.slice(0, at)
  const canonical = `/${path.split('/').filter((s) => s !== '').join('/')}`
  return canonical === path ? null : `${canonical}${at === -1 ? '' : url.slice(at)}`
}
