/**
 * Shareable reports (operations.md section 5, "Public pages"). The chart's
 * window is the campaign page's (domain/delivery-chart.ts).
 */

/** A report uuid as the service writes it: a random (v4) UUID in lower case, 122 random bits. */
export const REPORT_UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
