/**
 * The API terms an advertiser accepts before writing (advertiser-api.md
 * section 1). Versioned: acceptance records the version and the instant; a new
 * version is a new constant here, and the portal shows which one was accepted.
 */
export const TERMS_VERSION = '2026-11-01'

export const TERMS_TITLE = 'API terms of use'

/** The terms as paragraphs (plain text; pages escape it). */
export const TERMS_TEXT: readonly string[] = [
  'These terms govern your use of the Advertiser Campaign API and portal. By accepting them you confirm that you may bind the account holder to them.',
  'Ads. You are responsible for every ad line, brand, icon and destination you submit. Creatives are reviewed before they serve and may be rejected or removed when they are misleading, unlawful, or harmful to developers.',
  'Delivery and billing. Impressions are sold in blocks of 1,000 at your bid per 1,000 (CPM). You are billed after delivery, only for billable impressions: measured views of at least 9.5 seconds, within the frequency limits. Invoices follow your billing mode (weekly auto-pay, or Net 30 when approved).',
  'Keys. Your API key is a secret. Keep it out of source control and rotate it at once if it may have leaked; calls made with your key are yours.',
  'Limits. Requests are rate-limited per account. Repeated failed authentication from one address locks that address for 15 minutes.',
  'Data. Reports and exports describe your own campaigns only. Viewers are never identified to advertisers.',
  'Changes. We may update these terms; a new version is shown in the portal and must be accepted before further campaign writes.',
]
