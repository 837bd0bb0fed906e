/**
 * Password links in stored emails (issue 34; docs/security.md, "Email links at rest"). The
 * outbox keeps a message's body sealed without its link, and the link sealed apart, so that
 * ending a link removes it from the stored copy without opening anything. These rules say what
 * a reader of the outbox sees in its place.
 */

/** Why a link's stored copy was removed: it set the password, a newer link of its kind replaced it, the password changed another way, or it expired. */
export type LinkEnd = 'used' | 'replaced' | 'password_changed' | 'expired'

const ENDED: Record<LinkEnd, string> = {
  used: '[link removed: it was used]',
  replaced: '[link removed: a newer link replaced it]',
  password_changed: '[link removed: the password was set or changed since]',
  expired: '[link removed: it expired]',
}

/** What stands in a message's text for a link that no longer works. */
export function endedLinkNotice(end: LinkEnd): string {
  return ENDED[end]
}

/** The text of a message whose sealed body does not open with this instance's keys (KEY_SEALING_KEY lacks the key it was sealed under). */
export const UNREADABLE_BODY = '[sealed under a key this instance does not hold]'

/**
 * A message's text: `body` with `link` (the link itself, or the notice in its place) put back at
 * `at`, the offset it was taken from.
 */
export function withLink(body: string, at: number, link: string): string {
  return body.slice(0, at) + link + body.slice(at)
}

/** The body to seal and where its link was: `text` without `link` (which must occur in it). */
export function withoutLink(text: string, link: string): { body: string; at: number } {
  const at = text.indexOf(link)
  if (at < 0) throw new Error('the link is not in the message')
  return { body: text.slice(0, at) + text.slice(at + link.length), at }
}

/** Whether a link still in the store is shown at `now`: an expired one is not, whether or not the expiry job has removed it yet. */
export function linkShown(expiresAt: Date, now: Date): boolean {
  return now < expiresAt
}
