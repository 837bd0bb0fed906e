import type { ComponentChildren } from 'preact'
import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { Field, PostForm } from '../forms.tsx'
import { CheckboxField, ErrorSummary, SelectField, type Choice } from '../choice-fields.tsx'
import { orderableSurfaces, type TargetSurface } from '../../../domain/campaign-order.ts'
import { count, usdBid } from '../format.ts'
import { WriteSteps } from './overview.tsx'
import { AuctionQuoteRegion, type QuoteView } from './auction-quote.tsx'
import { EditorSurface, TerminalSurface } from '../ad-surfaces.tsx'
import type { AccountSchema } from '../../schemas/account.ts'
import type { CampaignCreateForm } from '../../schemas/pages/forms.ts'
import { tickedTopics, TopicPicker } from './topic-picker.tsx'

type Account = Static<typeof AccountSchema>
type Config = Account['config']
export type CampaignFormValues = Omit<Static<typeof CampaignCreateForm>, '_csrf' | 'action'>

/** The form's fields, in page order, with their labels (the API field's words, operations.md section 5). */
export const CAMPAIGN_FORM_FIELDS = {
  name: 'Name',
  ad_line: 'Ad line',
  brand: 'Brand',
  cpm_usd: 'Bid (CPM, USD)',
  blocks: 'Blocks',
  destination_url: 'Destination URL',
  target_surface: 'Target surface',
  target_countries: 'Target countries',
  target_topics: 'Target topics',
  icon_url: 'Icon URL',
  kind: 'Kind',
  pace_minutes: 'Pace (minutes)',
  start_paused: 'Start paused',
  optin_leaderboard: 'Show on the public leaderboard',
} as const
export type CampaignFormField = keyof typeof CAMPAIGN_FORM_FIELDS

/** What a failed submit shows: messages beside fields, and one about the whole form. */
export interface FormProblem<F extends string> {
  fields: Partial<Record<F, string>>
  form?: ComponentChildren
}

/** The values a fresh form starts with: the API's defaults, in the form's words. */
export function newCampaignValues(config: Config, idempotencyKey: string): CampaignFormValues {
  return {
    idempotency_key: idempotencyKey,
    target_surface: surfaceChoices(config)[0]!.value,
    kind: 'impression',
    // Unticked: appearing on the public leaderboard is the advertiser's choice to make (the API's default is true).
  }
}

/** What the line preview shows before an ad line is typed. */
export const PREVIEW_PLACEHOLDER = 'Your ad line appears here'

/**
 * The ad line as the terminal status line and the editor extension will show
 * it (pages/ad-surfaces.tsx, the preview page's rendering), with the values
 * typed so far; assets/site.js updates it as the line and brand change.
 */
function LinePreview(props: { adLine: string; brand: string }) {
  const view = { adLine: props.adLine.trim() === '' ? PREVIEW_PLACEHOLDER : props.adLine, brand: props.brand.trim() || null, iconUrl: null }
  return (
    <section class="line-preview" aria-labelledby="line-preview-heading" data-line-preview={PREVIEW_PLACEHOLDER}>
      <h2 id="line-preview-heading">How your ad will look</h2>
      <p class="hint">
        As the coding tools show it, “Ad” and your brand first, updated as you type. A narrow terminal cuts the end of a long line with “…”; about 30 to 40 characters
        shows whole.
      </p>
      <div class="line-preview-grid">
        <div>
          <h3>Terminal status line</h3>
          <TerminalSurface view={view} />
        </div>
        <div>
          <h3>Editor status bar</h3>
          <EditorSurface view={view} />
        </div>
      </div>
    </section>
  )
}

const isChecked = (value: string | undefined) => value !== undefined && value !== ''

/** How the form names each target surface; "both" is the blended order (the route omits the field for it). */
const SURFACE_CHOICES: Record<TargetSurface, Choice> = {
  blended: { value: 'both', label: 'Both surfaces' },
  extension: { value: 'extension', label: 'Editor extension' },
  terminal: { value: 'terminal', label: 'Terminal status line' },
}

/** Only the surfaces the live config accepts (`domain/campaign-order.ts#orderableSurfaces`), the default first. */
const surfaceChoices = (config: Config): Choice[] => orderableSurfaces(config).map((s) => SURFACE_CHOICES[s])

function surfaceHint(config: Config): string {
  return config.surface_split_enabled
    ? 'Each order runs on one surface, the editor extension or the terminal status line; place two orders to reach both.'
    : 'The surface split is off: every order runs on both surfaces at one bid.'
}

export function CampaignFormPage(props: {
  csrf: string
  email: string
  account: Account
  values: CampaignFormValues
  problem?: FormProblem<CampaignFormField>
  /** The auction quote for the values shown (null: not shown, e.g. after a refused create). */
  quote: QuoteView | null
}) {
  const { account, values } = props
  const config = account.config
  const errors = props.problem?.fields ?? {}
  const v = (name: Exclude<CampaignFormField, 'optin_leaderboard' | 'start_paused' | 'target_topics'>) => values[name] ?? ''
  const topics = tickedTopics(values)
  const summary = (Object.keys(CAMPAIGN_FORM_FIELDS) as CampaignFormField[])
    .filter((f) => errors[f])
    .map((f) => ({ id: `f-${f}`, label: CAMPAIGN_FORM_FIELDS[f], message: errors[f]! }))
  const text = (
    name: 'name' | 'ad_line' | 'brand' | 'destination_url' | 'target_countries' | 'icon_url',
    hint: string,
    extra: { inputMode?: 'url'; mark?: 'required' } = {},
  ) => <Field name={name} label={CAMPAIGN_FORM_FIELDS[name]} type="text" value={v(name)} error={errors[name]} hint={hint} autocomplete="off" {...extra} />
  return (
    <Page
      title="New campaign"
      area="portal"
      path="/portal/campaigns/new"
      session={{ csrf: props.csrf, who: props.email }}
      stylesheets={['/assets/ad-surfaces.css']}
    >
      {account.access.campaign_writes === 'operational' ? null : <WriteSteps account={account} />}
      <ErrorSummary errors={summary} form={props.problem?.form} />
      <p>
        Your campaign enters the same live auction as campaigns ordered through the API: a higher bid serves sooner. You are billed only for delivered impressions;
        the order total is a maximum, not a charge. Fields marked Required must be filled; the rest are optional.
      </p>
      <PostForm action="/portal/campaigns/new" csrf={props.csrf} class="card" label="New campaign">
        <input type="hidden" name="idempotency_key" value={values.idempotency_key ?? ''} />
        {text('name', 'Optional. Only you see it; without one it is named "Portal campaign" and the date.')}
        {text('ad_line', '3 to 60 characters; about 30 to 40 reads best. Screened for scams, adult content, hate, gambling and phishing.', { mark: 'required' })}
        {text('brand', 'Optional, up to 120 characters. Shown before the line, after “Ad” (Ad · brand · line), and on the public leaderboard if you opt in below.')}
        <LinePreview adLine={v('ad_line')} brand={v('brand')} />
        <Field
          name="cpm_usd"
          label={CAMPAIGN_FORM_FIELDS.cpm_usd}
          type="text"
          inputMode="decimal"
          autocomplete="off"
          value={v('cpm_usd')}
          error={errors.cpm_usd}
          mark="required"
          hint={`Dollars per 1,000 impressions, at least ${usdBid(config.min_cpm_usd)}. A higher bid serves sooner.`}
        />
        <Field
          name="blocks"
          label={CAMPAIGN_FORM_FIELDS.blocks}
          type="text"
          inputMode="numeric"
          autocomplete="off"
          value={v('blocks')}
          error={errors.blocks}
          mark="required"
          hint={`Blocks of ${count(config.block_impressions)} impressions, 1 to ${count(config.max_blocks)}. Bid × blocks is at most ${usdBid(config.max_total_usd)} per order.`}
        />
        {props.quote ? <AuctionQuoteRegion view={props.quote} /> : null}
        {text('destination_url', 'Where a click goes: an https:// address, up to 500 characters.', { inputMode: 'url', mark: 'required' })}
        <SelectField
          name="target_surface"
          label={CAMPAIGN_FORM_FIELDS.target_surface}
          value={v('target_surface')}
          error={errors.target_surface}
          hint={surfaceHint(config)}
          choices={surfaceChoices(config)}
        />
        {text(
          'target_countries',
          config.country_targeting_enabled
            ? 'Optional. Two-letter ISO codes separated by commas, e.g. US, DE (at most 20). Empty: worldwide.'
            : 'Country targeting is off: leave this empty for worldwide delivery.',
        )}
        <TopicPicker selected={topics} error={errors.target_topics} label={CAMPAIGN_FORM_FIELDS.target_topics} />
        {text('icon_url', 'Optional. An https:// address of an image, or a data:image URI. Kept with the creative; neither client draws it (the status bar item and the terminal line are text).', { inputMode: 'url' })}
        <SelectField
          name="kind"
          label={CAMPAIGN_FORM_FIELDS.kind}
          value={v('kind')}
          error={errors.kind}
          hint="What you buy and pay for. Impression: each ten-second showing of the line, at your bid per 1,000. Click: only the clicks on it, at your bid per 1,000 clicks (blocks then count clicks); it ranks by bid × its expected click rate."
          choices={[
            { value: 'impression', label: 'Impression' },
            { value: 'click', label: 'Click' },
          ]}
        />
        <Field
          name="pace_minutes"
          label={CAMPAIGN_FORM_FIELDS.pace_minutes}
          type="text"
          inputMode="numeric"
          autocomplete="off"
          value={v('pace_minutes')}
          error={errors.pace_minutes}
          hint="Optional. Spread the whole purchase over this many minutes (1 to 10,080, one week). Empty: deliver as fast as the auction allows."
        />
        <CheckboxField
          name="start_paused"
          label={CAMPAIGN_FORM_FIELDS.start_paused}
          checked={isChecked(values.start_paused)}
          error={errors.start_paused}
          hint="Create it paused; delivery starts when you resume it."
        />
        <CheckboxField
          name="optin_leaderboard"
          label={CAMPAIGN_FORM_FIELDS.optin_leaderboard}
          checked={isChecked(values.optin_leaderboard)}
          error={errors.optin_leaderboard}
          hint="Off unless you tick it. Counts this campaign's impressions for its brand on the public leaderboard, which anyone can see."
        />
        <div class="actions">
          <button type="submit">Create campaign</button>
          <button type="submit" name="action" value="quote" class="secondary">
            Show my place in the auction
          </button>
          <a href="/portal/campaigns">Back to campaigns</a>
        </div>
      </PostForm>
    </Page>
  )
}
