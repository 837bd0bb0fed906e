import { checkAdLine, checkBrand, checkIcon, type PreviewSurface } from './campaign-order.ts'
import { normalizeDestinationUrl } from './destination-url.ts'
import { invalid } from './errors.ts'

export type { PreviewSurface }

/** What a preview shows: a snapshot, presentation only. */
export interface PreviewContent {
  ad_line: string
  destination_url: string
  brand: string | null
  icon_url: string | null
  target_surface: PreviewSurface
}

/** The separator of the disclosed ad, as both clients print it. */
export const AD_SEPARATOR = ' · '

/**
 * The ad as the clients show it, disclosed: `Ad · {brand} · {ad_line}`, or
 * `Ad · {ad_line}` without a brand. The terminal status line prints this
 * (operations.md section 7, packages/status-line/src/line.js#adText), and the
 * editor extension's status bar item says the same (section 9). Previews,
 * the portal and the public report show it this way; assets/site.js repeats
 * the rule for the create form's live preview.
 */
export function disclosedAd(adLine: string, brand: string | null): string {
  const b = brand?.trim() ?? ''
  return ['Ad', ...(b === '' ? [] : [b]), adLine.trim()].join(AD_SEPARATOR)
}

/** POST /preview's body as the schema admits it. */
export interface PreviewInput {
  ad_line: string
  destination_url: string
  brand?: string
  icon_url?: string
  target_surface?: PreviewSurface
}

/**
 * An unfunded preview is validated and screened as a campaign's creative
 * would be (400 when the order would be refused). The destination is checked
 * like a campaign's but shown exactly as sent: the spec says previews are not
 * normalized. Checks run in the order of the fields: destination, line,
 * brand, icon.
 */
export function validatePreview(input: PreviewInput): PreviewContent {
  const destination = normalizeDestinationUrl(input.destination_url)
  if ('problem' in destination) throw invalid('destination_url', destination.problem)
  return {
    ad_line: checkAdLine(input.ad_line).adLine,
    destination_url: input.destination_url,
    brand: checkBrand(input.brand),
    icon_url: checkIcon(input.icon_url),
    target_surface: input.target_surface ?? 'both',
  }
}
