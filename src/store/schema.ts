import type { ColumnType, Generated } from 'kysely'
import type { ExportsTables } from './schema-exports.ts'
import type { WebhooksTables } from './schema-webhooks.ts'
import type { BillingMode } from '../domain/billing-schedule.ts'
import type { CampaignKind, CreationChannel, ModerationStatus, PreviewSurface, TargetSurface } from '../domain/campaign-order.ts'
import type { CampaignStatus } from '../domain/campaign-state.ts'
import type { BlockStatus } from '../domain/delivery.ts'
import type { AuditAction, AuditActor, AuditTargetKind } from '../domain/audit.ts'
import type { LinkEnd } from '../domain/email-links.ts'

/**
 * Table types for Kysely; they mirror src/store/migrations/*.sql. A `text` column holding one of a domain's
 * values has that domain type: the service writes nothing else, so reads need no cast.
 */

type Timestamp = ColumnType<Date, Date, Date>
type Int8 = ColumnType<number, number, number>

export interface AccountsTable {
  user_id: string
  email: string
  billing_email: string | null
  created_at: Timestamp
  api_key_hash: Buffer
  key_prefix: string
  key_created_at: Timestamp
  key_last_used_at: Timestamp | null
  write_approved: Generated<boolean>
  terms_accepted: Generated<boolean>
  terms_accepted_at: Timestamp | null
  writes_disabled: Generated<boolean>
  /** The standing beneath any operator hold (src/domain/collection.ts). */
  collection_status: Generated<string>
  collection_hold: ColumnType<string | null, string | null | undefined, string | null>
  requested_billing_mode: BillingMode | null
  /** `disabled` until billing is enrolled. */
  effective_billing_mode: Generated<BillingMode | 'disabled'>
  credit_limit_cents: ColumnType<number, number | undefined, number>
  processor_customer_id: string | null
  payment_method_id: string | null
  card_brand: string | null
  card_last4: string | null
  billing_country: string | null
  billing_enrolled_at: Timestamp | null
  /** The API terms version accepted (src/domain/terms.ts); null before acceptance. */
  terms_version: ColumnType<string | null, string | null | undefined, string | null>
  /** The current key sealed for the portal's "Reveal" (src/services/key-sealing.ts); null for keys issued before 0019. */
  api_key_sealed: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>
  /** A later account that shared its email (lower-cased) with an older one before migration 0034; left out of its unique index. */
  email_legacy_duplicate: Generated<boolean>
}

export interface SettingsTable {
  key: string
  value: ColumnType<unknown, string, string>
}

export interface ComponentStatesTable {
  component: string
  state: string
  updated_at: Timestamp
}

export interface CampaignsTable {
  campaign_id: string
  seq: ColumnType<number, never, never>
  user_id: string
  creation_channel: CreationChannel
  name: string
  status: CampaignStatus
  kind: CampaignKind
  cpm_micros: Int8
  impressions: number
  block_count: number
  target_surface: TargetSurface
  target_countries: string[] | null
  pace_minutes: number | null
  optin_leaderboard: boolean
  start_paused: boolean
  amount_cents: Int8
  lifetime_spent_micros: ColumnType<number, number | undefined, number>
  report_uuid: string | null
  created_at: Timestamp
  updated_at: Timestamp
  activated_at: Timestamp | null
  paused_at: Timestamp | null
  paused_ms: ColumnType<number, number | undefined, number>
  cancelled_at: Timestamp | null
  impressions_billed: ColumnType<number, number | undefined, number>
  /** The highest impression number ever carved into a lease (migration 0023). */
  impressions_leased: ColumnType<number, number | undefined, number>
  completed_at: Timestamp | null
}

/** A campaign's impression numbers [first_seq, first_seq + size) leased to one serving instance (src/store/leases.ts). */
export interface ImpressionLeasesTable {
  lease_id: ColumnType<number, never, never>
  campaign_id: string
  holder: string | null
  first_seq: Int8
  size: number
  used: number
  cpm_micros: Int8
  expires_at: Timestamp
}

/** Billed but unsettled lease use per campaign (a view, migration 0023). */
export interface CampaignLeaseUseView {
  campaign_id: ColumnType<string, never, never>
  used: ColumnType<number, never, never>
  spent_micros: ColumnType<number, never, never>
}

export interface CreativesTable {
  creative_id: string
  campaign_id: string
  user_id: string
  ad_line: string
  destination_url: string
  brand: string | null
  icon_url: string | null
  moderation_status: ModerationStatus
  moderation_reason: string | null
  created_at: Timestamp
  updated_at: Timestamp
}

export interface BlocksTable {
  campaign_id: string
  block_index: number
  status: BlockStatus
  impressions_target: number
  started_at: Timestamp | null
  exhausted_at: Timestamp | null
}

export interface CampaignCreateRequestsTable {
  user_id: string
  idempotency_key: string
  fingerprint: string
  campaign_id: string
  response: ColumnType<unknown, string, string>
  created_at: Timestamp
}

export interface PreviewsTable {
  token_hash: Buffer
  user_id: string
  campaign_id: string | null
  ad_line: string
  destination_url: string
  brand: string | null
  icon_url: string | null
  target_surface: PreviewSurface
  created_at: Timestamp
  expires_at: Timestamp
  revoked_at: Timestamp | null
}

export interface LedgerEventsTable {
  event_id: ColumnType<number, never, never>
  occurred_at: Timestamp
  event_type: 'impression' | 'view' | 'click' | 'repeat_view' | 'expired_view' | 'voided_impression' | 'voided_click'
  impression_id: string
  user_id: string
  campaign_id: string
  creative_id: string
  surface: string
  country: string | null
  billable: boolean
  debit_micros: ColumnType<number, number | undefined, never>
  dwell_ms: number | null
  reason: string | null
  viewer_key: string
  /** The decision's source (migration 0029): views and clicks only; operators only, never exported. */
  source: ColumnType<string | null, string | null | undefined, never>
  /** Milliseconds from the decision to the view or click report (migration 0029). */
  offer_age_ms: ColumnType<number | null, number | null | undefined, never>
}

/** The daily traffic review (migration 0029; services/traffic-review.ts). */
export interface TrafficReviewsTable {
  day: ColumnType<string, string, string>
  reviewed_at: Timestamp
  sources_flagged: number
  viewers_flagged: number
  units_voided: number
  credited_micros: Int8
}
export interface TrafficCreditsTable {
  day: ColumnType<string, string, string>
  user_id: string
  campaign_id: string
  units: number
  micros: Int8
}

/** The per-source bounds of invalid traffic (migration 0029), counted by the ledger statement. */
export interface SourceDayViewersTable {
  source: string
  day: ColumnType<string, string, string>
  viewer_key: string
}
export interface SourceCountsTable {
  source: string
  day: ColumnType<string, string, string>
  viewers: number
  /** The source's latest UTC hour of the day, and its billable units in it. */
  hour: Timestamp
  hour_billable: number
}

/** The operators' block list (migration 0029). */
export interface TrafficBlocksTable {
  block_id: string
  kind: 'cidr' | 'viewer'
  value: string
  note: ColumnType<string, string | undefined, string>
  created_at: Timestamp
  created_by: string
}

/** Each viewer's last billable impression per surface (the ten-second rule). */
export interface ViewerLastBillableTable {
  viewer_key: string
  surface: string
  billed_at_ms: Int8
}

/** A viewer's billable click on a campaign that day (migration 0024): at most one. */
export interface ViewerClickDaysTable {
  campaign_id: string
  viewer_key: string
  day: ColumnType<string, string, never>
}

/** Click campaigns' qualified views and clicks per surface and serving instance (migration 0024). */
export interface ClickCtrCountsTable {
  campaign_id: string
  surface: string
  holder: string
  impressions: Int8
  clicks: Int8
}

/** Offers counted per UTC minute, creative, surface and country (migration 0030): a decision is counted, not stored. */
export interface OfferCountsTable {
  minute: Timestamp
  user_id: string
  campaign_id: string
  creative_id: string
  surface: string
  /** '' when the decision named no country. */
  country: string
  offers: Int8
}

export interface ServingEpochTable {
  id: number
  epoch: Int8
}

export interface InvoicesTable {
  invoice_id: string
  user_id: string
  billing_mode: string
  period_start: Timestamp
  period_end: Timestamp
  delivered_micros: Int8
  amount_cents: Int8
  credits_applied_cents: Int8
  total_cents: Int8
  status: 'open' | 'paid' | 'payment_failed' | 'void'
  finalized_at: Timestamp
  due_at: Timestamp
  paid_at: Timestamp | null
  charge_attempts: ColumnType<number, number | undefined, number>
  /** The processor's charge awaiting the card holder's authentication. */
  pending_charge_id: ColumnType<string | null, string | null | undefined, string | null>
}

export interface CreditsTable {
  credit_id: string
  user_id: string
  amount_cents: Int8
  memo: string
  posted_at: Timestamp
  /** Set on the credit of the daily traffic review: the UTC day whose invalid traffic it gives back (migration 0029). */
  ivt_day: ColumnType<string | null, string | null | undefined, never>
}

export interface BillingEventsTable {
  event_id: ColumnType<number, never, never>
  user_id: string
  occurred_at: Timestamp
  event_type: string
  invoice_id: string | null
  credit_id: string | null
  amount_cents: ColumnType<number, number | undefined, never>
  detail: ColumnType<unknown, string | null, never>
}

export interface DailyRollupsTable {
  day: ColumnType<string, string, string>
  user_id: string
  campaign_id: string
  creative_id: string
  surface: string
  events: Int8
  billable_impressions: Int8
  viewable_ticks: Int8
  clicks: Int8
  spend_micros: Int8
  /** Non-billable views per reason (migration 0025). */
  nb_short_dwell: Int8
  nb_repeat: Int8
  nb_too_fast: Int8
  nb_viewer_frequency: Int8
  nb_expired: Int8
  nb_block_full: Int8
  nb_invalid_traffic: Int8
}

export interface DailyViewersTable {
  day: ColumnType<string, string, string>
  user_id: string
  campaign_id: string
  creative_id: string
  surface: string
  viewer_key: string
}

export interface AccountViewerDaysTable {
  user_id: string
  viewer_key: string
  day: ColumnType<string, string, string>
}

export interface DailyViewerReturnsTable {
  user_id: string
  day: ColumnType<string, string, string>
  prev_day: ColumnType<string | null, string | null, string | null>
  viewers: Int8
}

export interface RollupStateTable {
  id: number
  rolled_through: ColumnType<string | null, string | null, string | null>
  updated_at: Timestamp | null
}

/** One claim per impression and kind of row that is written at most once per impression (migration 0031). */
export interface LedgerClaimsTable {
  impression_id: string
  kind: 'view' | 'click' | 'repeat_view' | 'expired_view' | 'voided_impression' | 'voided_click'
  claimed_at: Timestamp
}

/** The first UTC day whose ledger rows are kept; null until the ledger-partitions job drops one (migration 0031). */
export interface LedgerRetentionTable {
  id: number
  retained_from: ColumnType<string | null, string | null, string | null>
  updated_at: Timestamp | null
}

/** How far each scheduled job has run (migration 0014). */
export interface JobWatermarksTable {
  job: string
  ran_through: Timestamp
  updated_at: Timestamp
}

/** How an outbox message left the service (migration 0017). */
export type OutboxDelivery = 'stored' | 'sent' | 'failed'

/** Why an emailed password link's stored copy was removed (migration 0032). */
export type OutboxLinkEnd = LinkEnd

/** Every email, kept before any SMTP attempt (migration 0017), its body sealed (migration 0032). */
export interface OutboxTable {
  message_id: string
  to_address: string
  subject: string
  /** A body still in clear: only rows written before migration 0032, until start-up seals them. */
  body: ColumnType<string | null, string | null | undefined, string | null>
  /** The body (without its link), sealed under the key-sealing key. */
  body_sealed: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>
  /** Where the password link goes back into the body (a UTF-16 offset); null: no link. */
  link_at: ColumnType<number | null, number | null | undefined, never>
  /** The link, sealed on its own while it works; null once ended (or no link). */
  link_sealed: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>
  /** SHA-256 of the link's token (password_tokens.token_hash). */
  link_token_hash: ColumnType<Buffer | null, Buffer | null | undefined, never>
  link_expires_at: ColumnType<Date | null, Date | null | undefined, never>
  link_ended: ColumnType<OutboxLinkEnd | null, OutboxLinkEnd | null | undefined, OutboxLinkEnd | null>
  sent_at: Timestamp
  delivery: OutboxDelivery
  error: string | null
  /** Insertion order: breaks ties of sent_at (migration 0028). */
  seq: Generated<number>
}

/** A portal sign-in: one per account, keyed by the normalized email (migration 0018). */
export interface LoginsTable {
  email_key: string
  user_id: string
  password_hash: string
  password_changed_at: Timestamp
}

/** Who a browser session belongs to. */
export type SessionSubjectKind = 'advertiser' | 'operator'

/** Browser sessions; only the token's SHA-256 is kept (migration 0018). */
export interface SessionsTable {
  token_hash: Buffer
  subject_kind: SessionSubjectKind
  subject_id: string
  created_at: Timestamp
  idle_expires_at: Timestamp
  expires_at: Timestamp
}

/** What an emailed password link is for. */
export type PasswordTokenPurpose = 'reset' | 'set'

/** One-use password links (migration 0018). */
export interface PasswordTokensTable {
  token_hash: Buffer
  user_id: string
  purpose: PasswordTokenPurpose
  email: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Timestamp | null
}

/** Operator sign-ins (migration 0020). */
export interface OperatorsTable {
  operator_id: string
  email: string
  email_key: string
  password_hash: string
  created_at: Timestamp
  password_changed_at: Timestamp
}

/** Who acted: an operator signed in to the console, or a caller of the token API. */
export type AuditActorKind = AuditActor['kind']

/** Every operator action (migration 0020); before/after are secret-free JSON snapshots. */
export interface AuditLogTable {
  entry_id: ColumnType<number, never, never>
  at: Timestamp
  actor_kind: AuditActorKind
  actor_id: string | null
  action: AuditAction
  target_kind: AuditTargetKind
  target_id: string | null
  before: ColumnType<unknown, string | null, never>
  after: ColumnType<unknown, string | null, never>
  source_address: string
}

export interface Database extends ExportsTables, WebhooksTables {
  operators: OperatorsTable
  audit_log: AuditLogTable
  logins: LoginsTable
  sessions: SessionsTable
  password_tokens: PasswordTokensTable
  outbox: OutboxTable
  job_watermarks: JobWatermarksTable
  daily_rollups: DailyRollupsTable
  daily_viewers: DailyViewersTable
  rollup_state: RollupStateTable
  account_viewer_days: AccountViewerDaysTable
  daily_viewer_returns: DailyViewerReturnsTable
  invoices: InvoicesTable
  credits: CreditsTable
  billing_events: BillingEventsTable
  ledger_events: LedgerEventsTable
  ledger_claims: LedgerClaimsTable
  ledger_retention: LedgerRetentionTable
  source_day_viewers: SourceDayViewersTable
  source_counts: SourceCountsTable
  traffic_blocks: TrafficBlocksTable
  traffic_reviews: TrafficReviewsTable
  traffic_credits: TrafficCreditsTable
  serving_epoch: ServingEpochTable
  offer_counts: OfferCountsTable
  viewer_last_billable: ViewerLastBillableTable
  viewer_click_days: ViewerClickDaysTable
  click_ctr_counts: ClickCtrCountsTable
  accounts: AccountsTable
  settings: SettingsTable
  component_states: ComponentStatesTable
  campaigns: CampaignsTable
  creatives: CreativesTable
  blocks: BlocksTable
  impression_leases: ImpressionLeasesTable
  campaign_lease_use: CampaignLeaseUseView
  campaign_create_requests: CampaignCreateRequestsTable
  previews: PreviewsTable
}
