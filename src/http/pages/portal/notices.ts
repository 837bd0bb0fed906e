/**
 * Notices shown after a redirect (`?notice=<code>`). Only these codes are
 * shown, so a link cannot put words of its own on a page.
 */
const NOTICES: Record<string, string> = {
  // One table for the whole portal: add a page's codes here.
  welcome: 'Welcome! Your account is created. The steps below open campaign writes.',
  signed_out: 'You are signed out.',
  password_set: 'Your password is set. Other sessions were signed out.',
  session_expired: 'Your session ended. Sign in again.',
  // Account pages (terms, billing).
  terms_accepted: 'Thank you: the API terms are accepted.',
  card_enrolled: 'Your card is enrolled for weekly auto-pay.',
  card_needs_authentication: 'Your card is attached. Your bank asks you to authenticate it before it can be charged.',
  card_authenticated: 'Thank you: your card is authenticated.',
  net30_requested: 'Your Net 30 request is sent. An operator reviews it and sets your credit limit.',
  created: 'Campaign created.',
  created_in_review: 'Campaign created. Its ad line is waiting for review, so it does not serve yet.',
  webhook_deleted: 'Endpoint deleted. Nothing more is sent to it.',
  webhook_resent: 'Delivery queued to be sent again now, with the same id.',
  webhook_test_sent: 'Test event queued: it is sent within a few seconds. Reload this page to see the attempt.',
  export_queued: 'Export requested. This page follows its progress; the file is kept for 24 hours once ready.',
  // The campaign page.
  campaign_paused: 'Campaign paused. It keeps its place in the auction.',
  campaign_resumed: 'Campaign resumed.',
  campaign_cancelled: 'Campaign cancelled. Delivered impressions are billed; undelivered ones never are.',
  campaign_renamed: 'Campaign renamed.',
  ad_line_rewritten: 'Ad line rewritten. The new line passed the content-safety screen and needs no review.',
  ad_line_in_review: 'Ad line rewritten. The new line is waiting for review (usually within one business day); we email you when it is decided.',
  report_shared: 'Report shared: anyone with the link below can see it.',
  report_unshared: 'Report no longer shared: its old link no longer works.',
}

export function portalNotice(code: string | undefined): string | null {
  return code !== undefined && Object.hasOwn(NOTICES, code) ? NOTICES[code]! : null
}
