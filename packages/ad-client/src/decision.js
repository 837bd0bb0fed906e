// @ts-check
/**
 * A decision (an offer) as the service answers it, and the disclosed text every client shows for it:
 * `Ad · {brand} · {ad_line}`, or `Ad · {ad_line}` without a brand, sanitised (text.js) and cut to the
 * room a client has by display width.
 */
import { sanitize, truncateToWidth } from './text.js'

/** @typedef {{ impression_id: string, ad_line: string, brand: string | null, icon_url?: string | null, view_url?: string, click_url: string }} Decision */

export const SEPARATOR = ' · '
/** The disclosure every ad starts with. */
export const DISCLOSURE = `Ad${SEPARATOR}`
/** The fewest columns an ad is shown in: its disclosure (`Ad · `, 5), a character and the ellipsis. */
export const MIN_AD_COLUMNS = 7

/**
 * The fields a client uses of a decision answer, or null when it is not one.
 * @param {unknown} raw @returns {Decision | null}
 */
export function parseDecision(raw) {
  if (raw === null || typeof raw !== 'object') return null
  const d = /** @type {Record<string, unknown>} */ (raw)
  if (typeof d.impression_id !== 'string' || typeof d.ad_line !== 'string' || typeof d.click_url !== 'string') return null
  return { impression_id: d.impression_id, ad_line: d.ad_line, brand: typeof d.brand === 'string' ? d.brand : null, click_url: d.click_url }
}

/** The ad as disclosed: `Ad · {brand} · {ad_line}`, or `Ad · {ad_line}` without a brand. @param {Decision} ad */
export function adText(ad) {
  const brand = ad.brand ? sanitize(ad.brand) : ''
  return brand ? `${DISCLOSURE}${brand}${SEPARATOR}${sanitize(ad.ad_line)}` : `${DISCLOSURE}${sanitize(ad.ad_line)}`
}

/**
 * The disclosed ad in at most `columns` display columns (cut with an ellipsis), or null when fewer
 * than MIN_AD_COLUMNS are left: an ad is never shown with its disclosure cut.
 * @param {Decision} ad @param {number} columns
 */
export function fitAd(ad, columns) {
  return columns >= MIN_AD_COLUMNS ? truncateToWidth(adText(ad), columns) : null
}

/** The click URL when it is an http(s) URL (else null: nothing to open). @param {Decision} ad */
export function clickUrl(ad) {
  const url = sanitize(ad.click_url)
  return /^https?:\/\//.test(url) ? url : null
}

