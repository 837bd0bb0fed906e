import { createHash } from 'node:crypto'
import { invalid } from './errors.ts'
import { checkDisplayText, displayTextFacts, findInvisibleCharacter } from './text-rules.ts'
import { normalizeDestinationUrl } from './destination-url.ts'
import { checkIconUrl } from './icon-url.ts'
import { CPM_MAX_DECIMALS, cpmUsdToMicros, microsToCents, orderFaceValueMicros, MICROS_PER_USD } from './money.ts'
import { screenAdLine } from './content-safety.ts'
import type { OrderConfig } from './order-config.ts'
import type { Surface } from './auction.ts'
import { checkTargetTopics } from './topics.ts'

export const CAMPAIGN_KINDS = ['impression', 'click'] as const
export type CampaignKind = (typeof CAMPAIGN_KINDS)[number]
/** Where a campaign serves: one surface, or both when the surface split is disabled. */
export const TARGET_SURFACES = ['extension', 'terminal', 'blended'] as const
export type TargetSurface = (typeof TARGET_SURFACES)[number]
/** What a preview shows: one surface's line, or both. */
export const PREVIEW_SURFACES = ['extension', 'terminal', 'both'] as const
export type PreviewSurface = (typeof PREVIEW_SURFACES)[number]
export const MODERATION_STATUSES = ['approved', 'pending', 'rejected'] as const
export type ModerationStatus = (typeof MODERATION_STATUSES)[number]
/** How a campaign was ordered: the API creates `advertiser_api` ones, the portal's create form `website` ones. */
export const CREATION_CHANNELS = ['advertiser_api', 'website', 'admin', 'legacy'] as const
export type CreationChannel = (typeof CREATION_CHANNELS)[number]
/** The channels that order through the create use case. */
export type OrderChannel = Extract<CreationChannel, 'advertiser_api' | 'website'>

/** POST /campaigns body after schema validation (types, required fields, static limits). */
export interface CampaignCreateInput {
  ad_line: string
  destination_url: string
  cpm_usd: number
  impressions: number
  idempotency_key: string
  brand?: string
  name?: string
  kind?: CampaignKind
  target_surface?: Surface
  target_countries?: string[]
  target_topics?: string[]
  pace_minutes?: number
  icon_url?: string
  optin_leaderboard?: boolean
  start_paused?: boolean
}

export interface Order {
  adLine: string
  destinationUrl: string
  cpmMicros: number
  impressions: number
  blocks: number
  brand: string | null
  name: string | null
  kind: CampaignKind
  targetSurface: TargetSurface
  targetCountries: string[] | null
  targetTopics: string[] | null
  paceMinutes: number | null
  iconUrl: string | null
  optinLeaderboard: boolean
  startPaused: boolean
  amountCents: number
  moderation: { status: ModerationStatus; reason: string | null }
}

/**
 * The idempotency fingerprint: SHA-256 of the payload with strings trimmed
 * and documented defaults applied, keys in a fixed order. So `{"start_paused":
 * false}` and an omitted start_paused are the same payload; any other
 * difference (including start_paused true) is a different one.
 */
export function createFingerprint(input: CampaignCreateInput): string {
  const canonical = [
    input.ad_line.trim(),
    input.destination_url,
    input.cpm_usd,
    input.impressions,
    input.brand?.trim() ?? null,
    input.name?.trim() ?? null,
    input.kind ?? 'impression',
    input.target_surface ?? null,
    input.target_countries ?? null,
    input.pace_minutes ?? null,
    input.icon_url ?? null,
    input.optin_leaderboard ?? true,
    input.start_paused ?? false,
    // Appended only when sent, so the fingerprints of orders made before topics existed stay as they were.
    ...(input.target_topics === undefined ? [] : [input.target_topics]),
  ]
  return createHash('sha256').update(JSON.stringify(canonical)).digest('hex')
}

/** Validates and screens an ad line; throws 400 naming `field`. Returns the trimmed line and its moderation. */
export function checkAdLine(raw: string, field = 'ad_line'): { adLine: string; moderation: Order['moderation'] } {
  const adLine = raw.trim()
  const problem = checkDisplayText(adLine, 3, 60)
  if (problem) throw invalid(field, problem, displayTextFacts(problem, 3, 60))
  refuseInvisible(adLine, field, 3, 60)
  const screening = screenAdLine(adLine)
  if (screening.verdict === 'deny') throw invalid(field, 'content_safety', { category: screening.category })
  return {
    adLine,
    moderation: screening.verdict === 'review' ? { status: 'pending', reason: screening.reason } : { status: 'approved', reason: null },
  }
}

export function checkOptionalLabel(raw: string | undefined, field: string, min: number): string | null {
  if (raw === undefined) return null
  const text = raw.trim()
  const problem = checkDisplayText(text, min, 120)
  if (problem) throw invalid(field, problem, displayTextFacts(problem, min, 120))
  return text === '' ? null : text
}

/** The brand: a label (at most 120 characters, may be empty) that viewers see, so without invisible characters. */
export function checkBrand(raw: string | undefined, field = 'brand'): string | null {
  const brand = checkOptionalLabel(raw, field, 0)
  if (brand !== null) refuseInvisible(brand, field, 0, 120)
  return brand
}

/**
 * Text a viewer is shown (ad line, brand) may not hide characters (text-rules.ts#findInvisibleCharacter):
 * 400 `invisible_characters` with the field's bounds and `found`, the first one as `U+XXXX`.
 */
function refuseInvisible(text: string, field: string, min: number, max: number): void {
  const found = findInvisibleCharacter(text)
  if (found !== null) throw invalid(field, 'invisible_characters', { ...displayTextFacts('invisible_characters', min, max), found })
}

export function checkDestinationUrl(raw: string, field = 'destination_url'): string {
  const result = normalizeDestinationUrl(raw)
  if ('problem' in result) throw invalid(field, result.problem)
  return result.url
}

export function checkIcon(raw: string | undefined): string | null {
  if (raw === undefined) return null
  const refusal = checkIconUrl(raw)
  if (refusal) {
    const { reason, ...facts } = refusal
    throw invalid('icon_url', reason, facts)
  }
  return raw
}

/** The part of an order that places it in the auction: what an auction quote asks about (domain/quote.ts). */
export interface BidInput {
  cpm_usd: number
  impressions: number
  kind?: CampaignKind
  target_surface?: Surface
  target_countries?: string[]
  target_topics?: string[]
}

export interface Bid {
  cpmMicros: number
  impressions: number
  blocks: number
  kind: CampaignKind
  targetSurface: TargetSurface
  targetCountries: string[] | null
  /** Sorted, distinct, each in the vocabulary (domain/topics.ts); null: none (every decision). */
  targetTopics: string[] | null
  /** The order's maximum face value, cpm × blocks. */
  faceMicros: number
}

/**
 * The target surfaces an order may have under the live config, the default
 * first: one surface (extension or terminal) while the surface split is on,
 * else only the blended order (both surfaces at one bid). `checkBid` applies
 * it; the portal's create form offers exactly these.
 */
export function orderableSurfaces(config: Pick<OrderConfig, 'surface_split_enabled'>): readonly TargetSurface[] {
  return config.surface_split_enabled ? ['extension', 'terminal'] : ['blended']
}

/**
 * The bid, volume and targeting rules of an order that depend on the live
 * config (bid floor, blocks, order total, surface split, country targeting),
 * in the order POST /campaigns checks them. Throws 400 naming the input.
 */
export function checkBid(input: BidInput, config: OrderConfig): Bid {
  const cpmMicros = cpmUsdToMicros(input.cpm_usd)
  if (cpmMicros === null) throw invalid('cpm_usd', 'too_precise', { max_decimals: CPM_MAX_DECIMALS })
  if (cpmMicros < Math.round(config.min_cpm_usd * MICROS_PER_USD)) {
    throw invalid('cpm_usd', 'below_minimum', { minimum: config.min_cpm_usd })
  }

  if (input.impressions % config.block_impressions !== 0) {
    throw invalid('impressions', 'not_a_multiple_of_block', { block_impressions: config.block_impressions })
  }
  const blocks = input.impressions / config.block_impressions
  if (blocks > config.max_blocks) throw invalid('impressions', 'too_many_blocks', { max_blocks: config.max_blocks })

  const faceMicros = orderFaceValueMicros(cpmMicros, blocks)
  if (faceMicros > Math.round(config.max_total_usd * MICROS_PER_USD)) {
    throw invalid('cpm_usd', 'order_total_exceeded', { max_total_usd: config.max_total_usd, order_total_usd: faceMicros / MICROS_PER_USD })
  }

  let targetSurface: TargetSurface = orderableSurfaces(config)[0]!
  if (config.surface_split_enabled) targetSurface = input.target_surface ?? targetSurface
  else if (input.target_surface !== undefined) throw invalid('target_surface', 'surface_split_not_enabled')

  let targetCountries: string[] | null = null
  if (input.target_countries !== undefined) {
    if (!config.country_targeting_enabled) throw invalid('target_countries', 'country_targeting_not_enabled')
    targetCountries = [...new Set(input.target_countries)].sort()
  }

  let targetTopics: string[] | null = null
  if (input.target_topics !== undefined) {
    const checked = checkTargetTopics(input.target_topics)
    if (!checked.ok) {
      throw checked.reason === 'unknown_topic'
        ? invalid('target_topics', 'unknown_topic', { topic: checked.topic })
        : invalid('target_topics', 'too_many_topics', { max: checked.max })
    }
    targetTopics = checked.topics.length > 0 ? checked.topics : null
  }

  return { cpmMicros, impressions: input.impressions, blocks, kind: input.kind ?? 'impression', targetSurface, targetCountries, targetTopics, faceMicros }
}

/** Applies every CampaignCreate rule that depends on the live config. Throws 400 naming the input. */
export function validateOrder(input: CampaignCreateInput, config: OrderConfig): Order {
  const { adLine, moderation } = checkAdLine(input.ad_line)
  const destinationUrl = checkDestinationUrl(input.destination_url)

  const { cpmMicros, blocks, targetSurface, targetCountries, targetTopics, faceMicros } = checkBid(input, config)

  return {
    adLine,
    destinationUrl,
    cpmMicros,
    impressions: input.impressions,
    blocks,
    brand: checkBrand(input.brand),
    name: checkOptionalLabel(input.name, 'name', 1),
    kind: input.kind ?? 'impression',
    targetSurface,
    targetCountries,
    targetTopics,
    paceMinutes: input.pace_minutes ?? null,
    iconUrl: checkIcon(input.icon_url),
    optinLeaderboard: input.optin_leaderboard ?? true,
    startPaused: input.start_paused ?? false,
    amountCents: microsToCents(faceMicros),
    moderation,
  }
}

/** Whether `name` is the shape defaultCampaignName makes (the advertiser gave none): it tells someone else nothing about the campaign. */
export function isDefaultCampaignName(name: string): boolean {
  return /^(?:API|Portal) campaign - \d{4}-\d{2}-\d{2}$/.test(name)
}

/** Default campaign name: "API campaign - YYYY-MM-DD" (UTC date of creation); "Portal campaign - …" for the portal's form. */
export function defaultCampaignName(now: Date, channel: OrderChannel = 'advertiser_api'): string {
  return `${channel === 'website' ? 'Portal' : 'API'} campaign - ${now.toISOString().slice(0, 10)}`
}
