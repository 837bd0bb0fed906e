import { invalid } from '../../../domain/errors.ts'
import type { CampaignFormValues } from '../../pages/portal/campaign-form.tsx'
import { tickedTopics } from '../../pages/portal/topic-picker.tsx'

/**
 * The create form's strings as a CampaignCreate body (POST /v1/campaigns).
 * Only conversion lives here: text that is not a number at all is refused
 * with the API's field name (`not_a_number`); everything else, including
 * negative, fractional or oversized numbers, goes to the API's schema and the
 * create service, which judge it as they judge any API client.
 */

/** A plain decimal as people type one ("2.50", "$2.50", ".5", "-1"); no exponents, hex or digit grouping. */
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/

function formNumber(text: string | undefined, apiField: string): number | undefined {
  const t = (text ?? '').trim().replace(/^\$\s*/, '')
  if (t === '') return undefined
  if (!DECIMAL.test(t)) throw invalid(apiField, 'not_a_number')
  return Number(t)
}

const optionalText = (text: string | undefined) => (text === undefined || text.trim() === '' ? undefined : text)

/** "us, de fr" → ["US", "DE", "FR"]; empty → omitted (worldwide). */
function countries(text: string | undefined): string[] | undefined {
  const codes = (text ?? '')
    .split(/[\s,;]+/)
    .filter((c) => c !== '')
    .map((c) => c.toUpperCase())
  return codes.length === 0 ? undefined : codes
}

/**
 * The topics of a form: the live quote's comma-separated `target_topics`, or the picker's ticked
 * `topic_<name>` boxes; none → omitted (every decision).
 */
function topicList(values: object & { target_topics?: string | undefined }): string[] | undefined {
  const names =
    values.target_topics !== undefined
      ? values.target_topics.split(',').map((v) => v.trim()).filter((v) => v !== '')
      : tickedTopics(values)
  return names.length === 0 ? undefined : names
}

/**
 * `target_surface`: "both" is the blended order, which exists only while the
 * surface split is off (then the field is omitted). With the split on, an
 * omitted field means extension-only, so "both" is sent as typed and the API
 * refuses it like any client's `both`.
 */
function surface(text: string | undefined, splitEnabled: boolean): string | undefined {
  const t = optionalText(text)
  if (t === 'both' && !splitEnabled) return undefined
  return t
}

/** A checkbox is in the posted form only when checked (browsers send its value, "on"). */
export const checked = (value: string | undefined) => value !== undefined && value !== ''

export function campaignBodyFromForm(
  values: CampaignFormValues,
  config: { block_impressions: number; surface_split_enabled: boolean },
): Record<string, unknown> {
  const blocks = formNumber(values.blocks, 'impressions')
  const body: Record<string, unknown> = {
    idempotency_key: values.idempotency_key,
    name: optionalText(values.name),
    ad_line: values.ad_line,
    brand: optionalText(values.brand),
    cpm_usd: formNumber(values.cpm_usd, 'cpm_usd'),
    impressions: blocks === undefined ? undefined : blocks * config.block_impressions,
    destination_url: optionalText(values.destination_url),
    target_surface: surface(values.target_surface, config.surface_split_enabled),
    target_countries: countries(values.target_countries),
    target_topics: topicList(values),
    icon_url: optionalText(values.icon_url),
    kind: optionalText(values.kind),
    pace_minutes: formNumber(values.pace_minutes, 'pace_minutes'),
    // A checkbox is in the form only when checked; both are sent explicitly, so the API's defaults never guess.
    optin_leaderboard: checked(values.optin_leaderboard),
    start_paused: checked(values.start_paused),
  }
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined && v !== ''))
}

/** The form fields an auction quote reads (the create form's, or the live quote's query). */
export type QuoteFormValues = Pick<CampaignFormValues, 'cpm_usd' | 'blocks' | 'target_surface' | 'target_countries' | 'kind'> & { target_topics?: string | undefined }

/**
 * The create form's strings as an auction quote's query (GET
 * /v1/auction/quote), converted as `campaignBodyFromForm` converts them. An
 * empty bid is quoted at the floor (a fresh form's quote) and empty blocks as
 * one block; the rest is judged by the API's schema and the quote service.
 */
export function quoteParamsFromForm(
  values: QuoteFormValues,
  config: { block_impressions: number; surface_split_enabled: boolean; min_cpm_usd: number },
): Record<string, unknown> {
  const blocks = formNumber(values.blocks, 'impressions')
  const params: Record<string, unknown> = {
    cpm_usd: formNumber(values.cpm_usd, 'cpm_usd') ?? config.min_cpm_usd,
    impressions: (blocks ?? 1) * config.block_impressions,
    target_surface: surface(values.target_surface, config.surface_split_enabled),
    target_countries: countries(values.target_countries)?.join(','),
    target_topics: topicList(values)?.join(','),
    kind: optionalText(values.kind),
  }
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined && v !== ''))
}
