import type { ColumnType } from 'kysely'

/**
 * Table types of reporting: the daily rollups, the viewer tallies behind reach and returns, and how
 * far the rollups ran (src/store/schema.ts has the rest; they mirror src/store/migrations/*.sql).
 */

type Timestamp = ColumnType<Date, Date, Date>
type Int8 = ColumnType<number, number, number>

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

/** The daily rollups and their viewer tallies. */
export interface ReportingTables {
  daily_rollups: DailyRollupsTable
  daily_viewers: DailyViewersTable
  account_viewer_days: AccountViewerDaysTable
  daily_viewer_returns: DailyViewerReturnsTable
  rollup_state: RollupStateTable
}
