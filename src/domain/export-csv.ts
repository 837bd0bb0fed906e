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
 */

export const EXPORT_SCHEMA_VERSIONS = ['ledger-export-v1', 'ledger-export-v2'] as const
export type ExportSchemaVersion = (typeof EXPORT_SCHEMA_VERSIONS)[number]

export const CSV_LINE_END = '\r\n'

export const V1_COLUMNS = ['timestamp', 'event_type', 'campaign_id', 'creative_id', 'surface', 'country', 'billable', 'debit_micros'] as const
export const V2_COLUMNS = [...V1_COLUMNS, 'processor_billing_country'] as const

export function exportColumns(version: ExportSchemaVersion): readonly string[] {
  return version === 'ledger-export-v1' ? V1_COLUMNS : V2_COLUMNS
}

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
}

/** One RFC 4180 field: quoted only when it must be. */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

export function csvLine(fields: readonly string[]): string {
  return fields.map(csvField).join(',') + CSV_LINE_END
}

export function headerLine(version: ExportSchemaVersion): string {
  return csvLine(exportColumns(version))
}

/** ISO-8601 UTC with milliseconds and `Z` (e.g. 2026-11-02T09:00:10.000Z). */
export function csvTimestamp(at: Date): string {
  return at.toISOString()
}

/**
 * One data line. `billingCountry` is the account's billing-address country at
 * the payment processor (v2 only; the same on every row, blank when none).
 */
export function rowLine(version: ExportSchemaVersion, row: ExportLedgerRow, billingCountry: string | null): string {
  if (!Number.isSafeInteger(row.debit_micros)) throw new RangeError(`debit_micros must be an integer, got ${row.debit_micros}`)
  const fields = [
    csvTimestamp(row.occurred_at),
    row.event_type,
    row.campaign_id,
    row.creative_id,
    row.surface,
    row.country ?? '',
    row.billable ? 'true' : 'false',
    String(row.debit_micros),
  ]
  if (version === 'ledger-export-v2') fields.push(billingCountry ?? '')
  return csvLine(fields)
}

/** The download's file name. */
export function exportFileName(exportId: string): string {
  return `ledger-export-${exportId}.csv`
}
