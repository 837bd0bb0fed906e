import type { ColumnType, Generated } from 'kysely'
import type { AccessTables } from './schema-access.ts'
import type { BillingTables } from './schema-billing.ts'
import type { ExportsTables } from './schema-exports.ts'
import type { LedgerTables } from './schema-ledger.ts'
import type { ReportingTables } from './schema-reporting.ts'
import type { WebhooksTables } from './schema-webhooks.ts'
import type { BillingMode } from '../domain/billing-schedule.ts'
import type { CampaignKind, CreationChannel, ModerationStatus, PreviewSurface, TargetSurface } from '../domain/campaign-order.ts'
import type { CampaignStatus } from '../domain/campaign-state.ts'
import type { BlockStatus } from '../domain/delivery.ts'

/**
 * Table types for Kysely; they mirror src/store/migrations/*.sql. A `text` column holding one of a domain's
 * values has that domain type: the service writes nothing else, so reads need no cast. This file holds
 * accounts, settings and campaigns (with their creatives, blocks, leases and previews); each other area
 * has a file of its own (schema-ledger.ts, schema-billing.ts, schema-reporting.ts, schema-access.ts,
 * schema-exports.ts, schema-webhooks.ts), and `Database` joins them.
 */

type Timestamp = ColumnType<Date, Date, Date>
type Int8 = ColumnType<number, number, number>

export type { AuditActorKind, LoginsTable, OperatorsTable, OutboxDelivery, OutboxLinkEnd, OutboxTable, PasswordTokenPurpose, PasswordTokensTable, SessionsTable, SessionSubjectKind } from './schema-access.ts'
export type { BillingEventsTable, CreditsTable, InvoicesTable } from './schema-billing.ts'
export type { LedgerEventsTable } from './schema-ledger.ts'

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
  /** Topics of the vocabulary the campaign targets (migration 0035); null: every decision. */
  target_topics: ColumnType<string[] | null, string[] | null | undefined, string[] | null>
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

/** How far each scheduled job has run (migration 0014). */
export interface JobWatermarksTable {
  job: string
  ran_through: Timestamp
  updated_at: Timestamp
}

export interface Database extends AccessTables, BillingTables, ExportsTables, LedgerTables, ReportingTables, WebhooksTables {
  accounts: AccountsTable
  settings: SettingsTable
  component_states: ComponentStatesTable
  campaigns: CampaignsTable
  impression_leases: ImpressionLeasesTable
  campaign_lease_use: CampaignLeaseUseView
  creatives: CreativesTable
  blocks: BlocksTable
  campaign_create_requests: CampaignCreateRequestsTable
  previews: PreviewsTable
  job_watermarks: JobWatermarksTable
}
