import type { ColumnType } from 'kysely'

/**
 * Table types of the serving ledger and what judges it: events and their once-per-impression claims,
 * retention, invalid-traffic counts, reviews and credits, the block list, viewer rules, click CTR
 * counts, offer counts and the serving epoch (src/store/schema.ts has the rest; the same rule: they
 * mirror src/store/migrations/*.sql).
 */

type Timestamp = ColumnType<Date, Date, Date>
type Int8 = ColumnType<number, number, number>

export interface LedgerEventsTable {
  event_id: ColumnType<number, never, never>
  occurred_at: Timestamp
  event_type: 'impression' | 'view' | 'click' | 'repeat_view' | 'expired_view' | 'voided_impression' | 'voided_click'
  /**
   * `ledger_claim_key(impression_id)`: the first 16 bytes of the impression id's SHA-256, as the claims
   * hold it (migration 0040; the row keeps no id). It joins a voided row to the row it voids.
   */
  impression_key: Buffer
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
  /** The topic the event's decision is attributed to (migration 0036; domain/topics.ts#attributedTopic); null: none. */
  topic: ColumnType<string | null, string | null | undefined, never>
  /** The Privacy Pass token of an attested billable impression (migration 0037); null on every other row. */
  attestation_token: ColumnType<Buffer | null, Buffer | null | undefined, never>
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
  /**
   * The source's first viewer of the day (migration 0041): listed here, not in `source_day_viewers`,
   * which holds its other viewers. NULL on rows written before 0041, whose viewers are all listed.
   */
  first_viewer: string | null
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

/** Decisions counted per UTC minute and topic ('' = every decision), migration 0036. */
export interface TopicDecisionCountsTable {
  minute: Timestamp
  topic: string
  decisions: Int8
}

export interface ServingEpochTable {
  id: number
  epoch: Int8
}

/** One claim per impression and kind of row that is written at most once per impression (migration 0031). */
export interface LedgerClaimsTable {
  /** `ledger_claim_key(impression_id)`: the first 16 bytes of the id's SHA-256 (migration 0038). */
  impression_key: Buffer
  kind: 'view' | 'click' | 'repeat_view' | 'expired_view' | 'voided_impression' | 'voided_click'
  claimed_at: Timestamp
}

/** The first UTC day whose ledger rows are kept; null until the ledger-partitions job drops one (migration 0031). */
export interface LedgerRetentionTable {
  id: number
  retained_from: ColumnType<string | null, string | null, string | null>
  updated_at: Timestamp | null
}

/** An account's closed UTC day (migration 0035): the chain's root over its rows and the day's figures. */
export interface LedgerDaysTable {
  user_id: string
  day: ColumnType<string, string, never>
  rows: Int8
  billable_impressions: Int8
  clicks: Int8
  debit_micros: Int8
  root: string
  previous_root: string
  /** The account's leaf in the day's public tree (account-id order). */
  leaf_index: number
  sealed_at: Timestamp
}

/** The head of a closed day's public Merkle tree (migration 0035): no account data. */
export interface LedgerTreeHeadsTable {
  day: ColumnType<string, string, never>
  tree_size: number
  root_hash: string
  sealed_at: Timestamp
}

/** The last UTC day the verifiable ledger closed (migration 0035). */
export interface LedgerCloseStateTable {
  id: number
  closed_through: ColumnType<string | null, string | null, string | null>
  updated_at: Timestamp | null
}

/** The Privacy Pass issuer's keys, one per key period (migration 0037). */
export interface PrivacyPassKeysTable {
  period: number
  token_key_id: Buffer
  token_key: Buffer
  private_key_sealed: Buffer
  not_before: Timestamp
  issue_until: Timestamp
  redeem_until: Timestamp
}

/** Tokens issued per attester subject (a keyed hash) and UTC day (migration 0037). */
export interface AttesterSubjectDaysTable {
  subject_hash: Buffer
  day: ColumnType<string, string, string>
  tokens: number
}

/** Spent tokens' nonces (migration 0037), claimed by the ledger's batch statement. */
export interface SpentTokensTable {
  nonce: Buffer
  token_key_id: Buffer
  spent_at: Timestamp
}

/** The serving ledger and the tables that judge and count it. */
export interface LedgerTables {
  privacy_pass_keys: PrivacyPassKeysTable
  attester_subject_days: AttesterSubjectDaysTable
  spent_tokens: SpentTokensTable
  ledger_events: LedgerEventsTable
  traffic_reviews: TrafficReviewsTable
  traffic_credits: TrafficCreditsTable
  source_day_viewers: SourceDayViewersTable
  source_counts: SourceCountsTable
  traffic_blocks: TrafficBlocksTable
  viewer_last_billable: ViewerLastBillableTable
  viewer_click_days: ViewerClickDaysTable
  click_ctr_counts: ClickCtrCountsTable
  offer_counts: OfferCountsTable
  topic_decision_counts: TopicDecisionCountsTable
  serving_epoch: ServingEpochTable
  ledger_claims: LedgerClaimsTable
  ledger_retention: LedgerRetentionTable
  ledger_days: LedgerDaysTable
  ledger_tree_heads: LedgerTreeHeadsTable
  ledger_close_state: LedgerCloseStateTable
}
