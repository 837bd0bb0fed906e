import type { ComponentChildren } from 'preact'
import type { Static } from 'typebox'
import { count, usdBid, usdFromCents } from '../format.ts'
import { CAMPAIGN_FORM_FIELDS, type CampaignFormField, type FormProblem } from './campaign-form.tsx'
import type { AccountSchema } from '../../schemas/account.ts'
import { PROVISIONING_INCOMPLETE, STORE_UNAVAILABLE, type Detail } from '../../../domain/errors.ts'

/**
 * What the new-campaign form says when the service refuses a create
 * (campaign-form.tsx shows it): the API's status and `{field, reason, …}`
 * mapped to the form field at fault, in words, with the next step.
 */

type Account = Static<typeof AccountSchema>
type Config = Account['config']

const fact = (detail: Record<string, unknown>, key: string): number | undefined => (typeof detail[key] === 'number' ? detail[key] : undefined)

/** Text rules (text-rules.ts, input-rules.ts) in words; the limits come from the error's own facts. */
function textMessage(reason: string, detail: Record<string, unknown>, what: string): string | null {
  const max = fact(detail, 'max_length') ?? fact(detail, 'limit')
  const min = fact(detail, 'min_length')
  switch (reason) {
    case 'too_long':
      return max === undefined ? `The ${what} is too long.` : `Use at most ${count(max)} characters for the ${what} (an emoji counts as one).`
    case 'too_short':
    case 'empty':
      return min === undefined ? `The ${what} is too short.` : `Use at least ${count(min)} visible characters for the ${what}.`
    case 'blank':
      return `The ${what} has only spaces or invisible characters.`
    case 'control_characters':
      return `Remove the control characters (tabs, line breaks, direction marks) from the ${what}.`
    case 'invalid_unicode':
      return `The ${what} contains characters that are not valid text.`
    case 'too_many_combining_marks':
      return `Use at most ${count(fact(detail, 'max_combining_marks') ?? 4)} accents or other combining marks on one character in the ${what}.`
    case 'invisible_characters':
      return `Remove the invisible characters (${typeof detail.found === 'string' ? `${detail.found}, ` : ''}zero-width spaces, direction marks and the like) from the ${what}.`
    default:
      return null
  }
}

const URL_REASONS: Record<string, string> = {
  invalid_format: 'Enter a full web address starting with https://, e.g. https://example.com/.',
  invalid_url: 'Enter a full web address starting with https://, e.g. https://example.com/.',
  https_required: 'The address must start with https://.',
  credentials_not_allowed: 'Remove the user name or password from the address.',
}

/** The message beside `field` for the API's 400 `{field, reason, …}`. */
function fieldMessage(field: CampaignFormField, reason: string, detail: Record<string, unknown>, config: Config): string {
  const text = (what: string) => textMessage(reason, detail, what)
  switch (field) {
    case 'name':
      return reason === 'required' ? 'Enter a name.' : (text('name') ?? 'Enter a different name.')
    case 'brand':
      return text('brand') ?? 'Enter a different brand.'
    case 'ad_line':
      if (reason === 'required') return 'Enter the ad line.'
      if (reason === 'content_safety') {
        const category = typeof detail.category === 'string' ? ` (${detail.category.replaceAll('_', ' ')})` : ''
        return `Our content-safety screen refused this line${category}. Rephrase it.`
      }
      return text('ad line') ?? 'Enter a different ad line.'
    case 'destination_url':
      if (reason === 'required') return 'Enter the destination URL.'
      if (reason === 'too_long') return `Use at most ${count(fact(detail, 'limit') ?? 500)} characters for the destination URL.`
      return URL_REASONS[reason] ?? text('destination URL') ?? 'Enter a different address.'
    case 'icon_url':
      if (reason === 'too_long') return `Use at most ${count(fact(detail, 'limit') ?? 12_000)} characters for the icon URL.`
      if (reason === 'invalid_icon_url') return 'Enter an https:// address of an image, or a data:image URI.'
      if (reason === 'unsafe_svg') {
        const found = typeof detail.found === 'string' ? ` (${detail.found})` : ''
        return `This SVG icon holds something an icon may not${found}: use shapes, gradients and text only, with no scripts, event handlers or links to other files.`
      }
      return text('icon URL') ?? 'Enter a different icon URL.'
    case 'cpm_usd':
      switch (reason) {
        case 'required':
          return 'Enter a bid in dollars per 1,000 impressions, e.g. 2.50.'
        case 'not_a_number':
        case 'invalid_type':
          return 'Enter the bid as a number of dollars, e.g. 2.50 (digits and a dot).'
        case 'below_minimum':
          return `Bid at least ${usdBid(config.min_cpm_usd)} per 1,000 impressions (the current floor).`
        case 'too_precise':
          return `Use at most ${fact(detail, 'max_decimals') ?? 6} decimals.`
        case 'order_total_exceeded': {
          const total = fact(detail, 'order_total_usd')
          const max = fact(detail, 'max_total_usd') ?? config.max_total_usd
          return `Bid × blocks comes to ${total === undefined ? 'more than' : usdBid(total) + ', over'} the ${usdBid(max)} limit per order. Lower the bid or buy fewer blocks.`
        }
        default:
          return 'Enter a different bid.'
      }
    case 'blocks':
      switch (reason) {
        case 'required':
          return 'Enter how many blocks of 1,000 impressions to buy.'
        case 'below_minimum':
          return 'Buy at least 1 block.'
        case 'above_maximum':
        case 'too_many_blocks':
          return `Buy at most ${count(fact(detail, 'max_blocks') ?? config.max_blocks)} blocks per order.`
        default:
          return 'Enter a whole number of blocks, e.g. 10.'
      }
    case 'target_surface':
      if (reason === 'surface_split_not_enabled') return 'Campaigns serve on both surfaces right now (the surface split is off): choose Both.'
      return config.surface_split_enabled
        ? 'The surface split is on, so a campaign serves on one surface: choose Extension or Terminal.'
        : 'Choose Both, Extension or Terminal.'
    case 'target_countries':
      if (reason === 'country_targeting_not_enabled') return 'Country targeting is off: leave this empty for worldwide delivery.'
      if (reason === 'too_many_items') return `List at most ${fact(detail, 'limit') ?? 20} countries.`
      return 'Use two-letter ISO country codes separated by commas, e.g. US, DE.'
    case 'target_topics':
      if (reason === 'unknown_topic' && typeof detail.topic === 'string') return `"${detail.topic}" is not in the topic list: choose topics from the list.`
      if (reason === 'too_many_topics') return `Choose at most ${count(fact(detail, 'max') ?? 10)} topics.`
      return 'Choose topics from the list.'
    case 'kind':
      return 'Choose Impression or Click.'
    case 'pace_minutes':
      if (reason === 'below_minimum' || reason === 'above_maximum') return 'Enter between 1 and 10,080 minutes (one week), or leave it empty for fastest delivery.'
      return 'Enter a whole number of minutes, or leave it empty for fastest delivery.'
    case 'start_paused':
    case 'optin_leaderboard':
      return 'Check or uncheck the box.'
  }
}

/** The form field an API field belongs to (`impressions` is entered as blocks, `target_countries.3` is the list). */
function formFieldOf(apiField: string): CampaignFormField | null {
  const root = apiField.split('.')[0]!
  if (root === 'impressions') return 'blocks'
  return Object.hasOwn(CAMPAIGN_FORM_FIELDS, root) ? (root as CampaignFormField) : null
}

/** The form-level problem of write access in the order of `access.campaign_writes`, with the next step. */
function writeProblem(account: Account): ComponentChildren {
  const { access } = account
  switch (access.campaign_writes) {
    case 'disabled':
      return 'An operator has switched campaign writes off for this account. Contact support to reopen them.'
    case 'pending_approval':
      return 'Your account is waiting for approval: we review new accounts within one business day. You can create campaigns once an operator approves it.'
    case 'terms_required':
      return (
        <>
          Accept the API terms before creating campaigns: <a href="/portal/terms">read and accept the terms</a>.
        </>
      )
    default:
      return (
        <>
          Billing blocks new campaigns{access.billing_reason ? ` (${access.billing_reason.replaceAll('_', ' ')})` : ''}:{' '}
          <a href="/portal/billing">set up billing</a>.
        </>
      )
  }
}

/**
 * What the page says about a create the service refused: the API's status and
 * detail, mapped to the form field that caused it, in words. `freshKey` when
 * the form must be reissued with a new idempotency key.
 */
export function createProblem(status: number, detail: Detail, account: Account): FormProblem<CampaignFormField> & { freshKey?: boolean } {
  const d: Record<string, unknown> = typeof detail === 'string' ? {} : detail
  const reason = typeof d.reason === 'string' ? d.reason : ''
  if (status === 403 || (status === 402 && d.field === 'billing')) return { fields: {}, form: writeProblem(account) }
  if (status === 402 && reason === 'outstanding_balance_cap') {
    const cap = fact(d, 'cap_usd')
    return {
      fields: {},
      form: (
        <>
          Your balance not yet invoiced ({usdFromCents(fact(d, 'outstanding_cents') ?? 0)}) has reached the cap{cap === undefined ? '' : ` of ${usdBid(cap)}`} for new orders.
          New campaigns can be ordered once it is invoiced; see <a href="/portal/billing">Billing</a>.
        </>
      ),
    }
  }
  if (status === 402 && reason === 'credit_limit') {
    return {
      fields: {},
      form: (
        <>
          Your Net 30 balance owed ({usdFromCents(fact(d, 'owed_cents') ?? 0)}) has reached your credit limit of {usdFromCents(fact(d, 'credit_limit_cents') ?? 0)}. Pay
          open invoices to order again; see <a href="/portal/billing">Billing</a>.
        </>
      ),
    }
  }
  if (status === 409 && reason === 'idempotency_key_reused') {
    const id = typeof d.campaign_id === 'string' ? d.campaign_id : null
    return {
      fields: {},
      freshKey: true,
      form: (
        <>
          This form was already used to create a campaign{id ? <> (<a href={`/portal/campaigns/${id}`}>see it</a>)</> : null}. Check the values below and submit again to create
          another one.
        </>
      ),
    }
  }
  if (status === 400 && typeof d.field === 'string') {
    const field = formFieldOf(d.field)
    if (field) return { fields: { [field]: fieldMessage(field, reason, d, account.config) } }
    if (d.field === 'idempotency_key') return { fields: {}, freshKey: true, form: 'This form is out of date. Check the values below and submit again.' }
  }
  if (status === 429) return { fields: {}, form: `You have created ${count(account.config.create_rate_limit_per_min)} campaigns this minute, the most allowed. Wait a minute and submit again.` }
  if (status === 503 && detail === PROVISIONING_INCOMPLETE) {
    return { fields: {}, form: 'Another change to your account was in progress. Your order may not be placed yet: submit the same form again (it cannot create the campaign twice).' }
  }
  if (status === 503 && detail === STORE_UNAVAILABLE) return { fields: {}, form: 'We could not reach our database just now. Your order was not placed; submit again in a moment.' }
  if (status === 503) return { fields: {}, form: 'Campaign creation is switched off for the moment. Your order was not placed; try again later.' }
  return { fields: {}, form: typeof detail === 'string' ? `The campaign was not created: ${detail}.` : `The campaign was not created (${reason || 'error'}).` }
}
