import { Type, type TProperties } from 'typebox'
import { WEBHOOK_EVENT_TYPES } from '../../../domain/webhooks.ts'

/**
 * Form bodies of the HTML pages. Every field is text (forms post strings);
 * the service checks meaning and the page shows its errors next to the field.
 * The schema only bounds sizes and names, and it is kept out of the API's
 * OpenAPI description. Unknown fields are ignored: browsers add their own.
 */
const text = (maxLength = 2_000) => Type.String({ maxLength })

/** A form with these fields plus the CSRF token every state-changing form carries. */
export const Form = <P extends TProperties>(properties: P) => Type.Object({ _csrf: text(200), ...properties }, { additionalProperties: true })

export const FormText = text
export const OptionalText = (maxLength = 2_000) => Type.Optional(text(maxLength))

export const LoginForm = Form({ email: text(320), password: text(1_024), next: OptionalText(2_000) })
export const SignupForm = Form({ email: text(320), password: text(1_024) })
export const ForgotPasswordForm = Form({ email: text(320) })
export const SetPasswordForm = Form({ token: text(200), password: text(1_024) })
/** A button-only form (sign out, accept, pause…): the CSRF token alone. */
export const EmptyForm = Form({})
export const RevealKeyForm = Form({ password: text(1_024) })
export const RotateKeyForm = Form({ password: text(1_024) })
export const CardForm = Form({ card_number: text(64) })

/**
 * The create-campaign form (/portal/campaigns/new). Field names are the API's
 * (`blocks` stands for `impressions` ÷ block size); the route builds the
 * CampaignCreate body from them and checks it with the API's own schema.
 */
export const CampaignCreateForm = Form({
  idempotency_key: OptionalText(200),
  name: OptionalText(1_000),
  ad_line: OptionalText(1_000),
  brand: OptionalText(1_000),
  cpm_usd: OptionalText(100),
  blocks: OptionalText(100),
  destination_url: OptionalText(2_000),
  target_surface: OptionalText(40),
  target_countries: OptionalText(1_000),
  // The topic picker's ticked boxes arrive as `topic_<name>` fields (pages/portal/topic-picker.tsx#tickedTopics): unknown fields pass.
  icon_url: OptionalText(16_000),
  kind: OptionalText(40),
  pace_minutes: OptionalText(100),
  optin_leaderboard: OptionalText(10),
  start_paused: OptionalText(10),
  /** `quote`: the no-JavaScript "Show my place in the auction" button; the form is shown again with a quote, nothing is created. */
  action: OptionalText(20),
})

/** The create form's live quote (GET /portal/campaigns/new/quote): the fields of the form the quote reads, as typed. */
export const CampaignQuoteQuery = Type.Object(
  {
    cpm_usd: OptionalText(100),
    blocks: OptionalText(100),
    target_surface: OptionalText(40),
    target_countries: OptionalText(1_000),
    /** Comma-separated, as the live quote sends the ticked topics. */
    target_topics: OptionalText(4_000),
    kind: OptionalText(40),
  },
  { additionalProperties: false },
)

/** The export request form (/portal/exports): the window as typed (UTC) and one optional campaign. */
export const ExportRequestForm = Form({ start: OptionalText(100), end: OptionalText(100), campaign: OptionalText(200), schema_version: OptionalText(100) })

// The campaign page (routes/portal/campaign.ts). Generous bounds: the service's own length rule
// (1-120, 3-60 characters) answers beside the field; this only caps what a form may post.
export const RenameForm = Form({ name: text(8_000) })
export const AdLineForm = Form({ ad_line: text(8_000) })

/** The add-endpoint form (/portal/webhooks): the URL and one checkbox per event (`event_<name>`, present when ticked). */
export const WebhookEndpointForm = Form({
  url: OptionalText(2_000),
  ...Object.fromEntries(WEBHOOK_EVENT_TYPES.map((event) => [`event_${event}`, OptionalText(10)])),
})
