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

export type IconProblem = 'too_long' | 'invalid_icon_url'
export const MAX_ICON_URL_LENGTH = 12_000

/** An icon is an https URL or a data: URI of an image. */
export function checkIconUrl(raw: string): IconProblem | null {
  if (raw.length > MAX_ICON_URL_LENGTH) return 'too_long'
  if (/^data:image\/(png|jpeg|gif|webp|svg\+xml)(;[a-z0-9=.+-]+)*,/i.test(raw)) return null
  if (/[\s\p{Cc}]/u.test(raw)) return 'invalid_icon_url'
  try {
    const u = new URL(raw)
    if (u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '') return null
  } catch {
    // fall through
  }
  return 'invalid_icon_url'
}
