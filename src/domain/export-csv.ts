/**
 * The ledger export CSV contract (advertiser spec section 9, operations.md
 * section 6 "Exports"). Pure formatting: no store, no clock.
 *
 * - RFC 4180: fields separated by `,`; a field containing `,`, `"`, CR or LF
 *   is wrapped in double quotes with inner quotes doubled.
 * - Every line, the header and the last row included, ends in CRLF (`\r\n`),
 *   the RFC 4180 line break; UTF-8, no byte-order mark.
 * - Viewer keys, impression ids, client ids, IP hashes and network
 *   identifiers are never columns: the row type below cannot carry them.
 *
 * This file is the single statement of the format. The export worker has the
 * store render the lines (src/store/exports.ts#exportLineSql), and that SQL is
 * generated from the same constants and field list (`EXPORT_FIELDS`); a test
 * compares the two renderings on awkward values (test/api/exports.test.ts).
 */

import { LEGACY_REASONS } from './delivery.ts'

export const EXPORT_SCHEMA_VERSIONS = ['ledger-export-v1', 'ledger-export-v2', 'ledger-export-v3', 'ledger-export-v4'] as const
export type ExportSchemaVersion = (typeof EXPORT_SCHEMA_VERSIONS)[number]

export const CSV_SEPARATOR = ','
export const CSV_QUOTE = '"'
export const CSV_LINE_END = '\r\n'
/** A field holding any of these is quoted. */
export const CSV_QUOTE_TRIGGERS: readonly string[] = [CSV_SEPARATOR, CSV_QUOTE, '\r', '\n']
/** The text of `billable`. */
export const CSV_BOOLEAN = { true: 'true', false: 'false' } as const

/** The exported fields of one ledger event (and nothing else). */
export interface ExportLedgerRow {
  occurred_at: Date
  event_type: string
  campaign_id: string
  creative_id: string
  surface: string
  country: string | null
  billable: boolean
  debit_micros: number
  /** The stored reason (v3's `non_billable_reason`, read through `nonBillableReasonText`). */
  reason: string | null
  /** The Privacy Pass token of an attested billable impression (v4's `attestation_token`, base64url); absent or null on every other row. */
  attestation_token?: Buffer | null
}

/**
 * How a field is written:
 * - `timestamp`: ISO-8601 UTC with milliseconds and `Z` (`Date#toISOString`, e.g.
 *   2026-11-02T09:00:10.000Z; finer fractions are truncated to the millisecond);
 * - `token`: the value as is; `optional_token`: the same, blank when null. A token is text the
 *   store constrains to letters, digits and `_` (ids, the event type, the surface, the country:
 *   CHECK constraints of migrations 0002 and 0010), so it never holds a quote trigger;
 * - `boolean`: `true` / `false`; `integer`: decimal digits (an exact integer).
 * So no data field of the ledger needs quoting; `csvLine` still quotes any field that would (the
 * header, and v2's billing country, which comes from the processor, go through it).
 */
export type ExportField =
  | { column: string; kind: 'timestamp'; source: SourceOf<Date> }
  | { column: string; kind: 'token'; source: SourceOf<string> }
  | { column: string; kind: 'optional_token'; source: SourceOf<string | null> }
  | { column: string; kind: 'boolean'; source: SourceOf<boolean> }
  | { column: string; kind: 'integer'; source: SourceOf<number> }

/** The fields of a ledger row whose values are of type T: each kind writes only such a field. */
type SourceOf<T> = { [K in keyof ExportLedgerRow]-?: ExportLedgerRow[K] extends T ? K : never }[keyof ExportLedgerRow]

/** The columns of every version, in order, with the ledger field each one writes. */
export const EXPORT_FIELDS: readonly ExportField[] = [
  { column: 'timestamp', source: 'occurred_at', kind: 'timestamp' },
  { column: 'event_type', source: 'event_type', kind: 'token' },
  { column: 'campaign_id', source: 'campaign_id', kind: 'token' },
  { column: 'creative_id', source: 'creative_id', kind: 'token' },
  { column: 'surface', source: 'surface', kind: 'token' },
  { column: 'country', source: 'country', kind: 'optional_token' },
  { column: 'billable', source: 'billable', kind: 'boolean' },
  { column: 'debit_micros', source: 'debit_micros', kind: 'integer' },
]
/** v2 only: the account's billing-address country at the processor, the same on every row (blank when none). */
export const V2_BILLING_COUNTRY_COLUMN = 'processor_billing_country'

/**
 * v3 only: why a recorded view was not billable, in the one vocabulary (src/domain/delivery.ts,
 * NON_BILLABLE_REASONS; reasons stored before issue 25 are written under their current name); blank
 * on billable impressions and on every row that is not a view report.
 */
export const V3_REASON_COLUMN = 'non_billable_reason'

/**
 * v4 only: the Privacy Pass token (RFC 9578, type 0x0002) an attested billable impression carried, in
 * base64url without padding; blank on every other row. Anyone can check it against the issuer keys the
 * transparency log publishes (`adctl ledger verify --tokens`, docs/attestation.md).
 */
export const V4_TOKEN_COLUMN = 'attestation_token'

export const V1_COLUMNS = EXPORT_FIELDS.map((f) => f.column)
export const V2_COLUMNS = [...V1_COLUMNS, V2_BILLING_COUNTRY_COLUMN]
export const V3_COLUMNS = [...V2_COLUMNS, V3_REASON_COLUMN]
export const V4_COLUMNS = [...V3_COLUMNS, V4_TOKEN_COLUMN]

export function exportColumns(version: ExportSchemaVersion): readonly string[] {
  return { 'ledger-export-v1': V1_COLUMNS, 'ledger-export-v2': V2_COLUMNS, 'ledger-export-v3': V3_COLUMNS, 'ledger-export-v4': V4_COLUMNS }[version]
}

/** Whether the version has v3's reason column and event types (v3 and v4). */
export const hasReasons = (version: ExportSchemaVersion) => version === 'ledger-export-v3' || version === 'ledger-export-v4'

/** Whether the version has v2's billing-country column (v2 and v3). */
export const hasBillingCountry = (version: ExportSchemaVersion) => version !== 'ledger-export-v1'

/** The ledger's view reports that are not a measured view: a repeat, a view after the offer's hour. */
export const NON_MEASURED_VIEW_REPORTS = ['repeat_view', 'expired_view'] as const
/**
 * The rows of the daily traffic review (migration 0029): a billable impression or click judged invalid
 * after the fact, dated like the row it voids, reason `invalid_traffic`; its money goes back as a credit.
 */
export const VOIDED_EVENT_TYPES = ['voided_impression', 'voided_click'] as const
/** Event types that only v3 lists. */
export type V3OnlyEventType = (typeof NON_MEASURED_VIEW_REPORTS)[number] | (typeof VOIDED_EVENT_TYPES)[number]

/**
 * Event types a version does not list. The repeat and late view reports (migration 0025) and the
 * voided rows (migration 0029) came with v3: v1 and v2 files keep exactly the rows and event types
 * they always had.
 */
export function eventTypesLeftOut(version: ExportSchemaVersion): readonly V3OnlyEventType[] {
  return hasReasons(version) ? [] : [...NON_MEASURED_VIEW_REPORTS, ...VOIDED_EVENT_TYPES]
}
/** The event types whose rows are recorded views (billable or not). */
export const VIEW_REPORT_EVENT_TYPES = ['impression', 'view', ...NON_MEASURED_VIEW_REPORTS] as const
/** The rows v3's `non_billable_reason` names a reason on: the non-billable view reports and the voided rows. */
export const REASONED_EVENT_TYPES = ['view', ...NON_MEASURED_VIEW_REPORTS, ...VOIDED_EVENT_TYPES] as const

/** v3's `non_billable_reason` of a row: the reason, under its current name, on a non-billable view report or a voided row; else blank. */
export function nonBillableReasonText(eventType: string, reason: string | null): string {
  if (reason === null || !(REASONED_EVENT_TYPES as readonly string[]).includes(eventType)) return ''
  return LEGACY_REASONS[reason] ?? reason
}

/** One RFC 4180 field: quoted only when it must be. */
export function csvField(value: string): string {
  return CSV_QUOTE_TRIGGERS.some((c) => value.includes(c)) ? CSV_QUOTE + value.replaceAll(CSV_QUOTE, CSV_QUOTE + CSV_QUOTE) + CSV_QUOTE : value
}

export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(CSV_SEPARATOR) + CSV_LINE_END
}

export function headerLine(version: ExportSchemaVersion): string {
  return csvLine(exportColumns(version))
}

/** ISO-8601 UTC with milliseconds and `Z` (e.g. 2026-11-02T09:00:10.000Z). */
export function csvTimestamp(at: Date): string {
  return at.toISOString()
}

function fieldText(field: ExportField, row: ExportLedgerRow): string {
  switch (field.kind) {
    case 'timestamp':
      return csvTimestamp(row[field.source])
    case 'token':
      return row[field.source]
    case 'optional_token':
      return row[field.source] ?? ''
    case 'boolean':
      return row[field.source] ? CSV_BOOLEAN.true : CSV_BOOLEAN.false
    case 'integer': {
      const value = row[field.source]
      if (!Number.isSafeInteger(value)) throw new RangeError(`${field.source} must be an integer, got ${String(value)}`)
      return String(value)
    }
  }
}

/**
 * One data line. `billingCountry` is the account's billing-address country at
 * the payment processor (v2 only; the same on every row, blank when none).
 */
export function rowLine(version: ExportSchemaVersion, row: ExportLedgerRow, billingCountry: string | null): string {
  const fields = EXPORT_FIELDS.map((f) => fieldText(f, row))
  if (hasBillingCountry(version)) fields.push(billingCountry ?? '')
  if (hasReasons(version)) fields.push(nonBillableReasonText(row.event_type, row.reason))
  if (version === 'ledger-export-v4') fields.push(row.event_type === 'impression' && row.attestation_token ? row.attestation_token.toString('base64url') : '')
  return csvLine(fields)
}

/** The download's file name. */
export function exportFileName(exportId: string): string {
  return `ledger-export-${exportId}.csv`
}
