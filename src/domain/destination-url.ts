export type UrlProblem = 'too_long' | 'invalid_url' | 'https_required' | 'credentials_not_allowed'

export const MAX_DESTINATION_URL_LENGTH = 500

/**
 * Validates an advertiser destination URL and returns its normalized form.
 * Normalization only gives a bare host its root path ("https://a.dev" and
 * "https://a.dev?x" become "https://a.dev/" and "https://a.dev/?x"); the
 * path and query the advertiser wrote are kept byte for byte.
 */
export function normalizeDestinationUrl(raw: string): { url: string } | { problem: UrlProblem } {
  if (raw.length > MAX_DESTINATION_URL_LENGTH) return { problem: 'too_long' }
  if (/[\s\p{Cc}]/u.test(raw)) return { problem: 'invalid_url' }
  let parsed: URL
  try {
    parsed = new URL(raw)
  } catch {
    return { problem: 'invalid_url' }
  }
  if (parsed.protocol !== 'https:' || !/^https:\/\//i.test(raw)) return { problem: 'https_required' }
  if (parsed.username !== '' || parsed.password !== '') return { problem: 'credentials_not_allowed' }
  if (parsed.hostname === '') return { problem: 'invalid_url' }

  const authorityEnd = raw.slice('https://'.length).search(/[/?#]/)
  if (authorityEnd === -1) return { url: `${raw}/` }
  const cut = 'https://'.length + authorityEnd
  if (raw[cut] === '/') return { url: raw }
  const url = `${raw.slice(0, cut)}/${raw.slice(cut)}`
  return url.length > MAX_DESTINATION_URL_LENGTH ? { problem: 'too_long' } : { url }
}
