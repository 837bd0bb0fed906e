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
  export_queued: 'Export requested. This page follows its progress; the file is kept for 24 hours once ready.',
}

export function portalNotice(code: string | undefined): string | null {
  return code !== undefined && Object.hasOwn(NOTICES, code) ? NOTICES[code]! : null
}
