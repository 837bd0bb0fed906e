import { Page, type NavItem } from './layout.tsx'

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Page not found',
  410: 'Gone',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
}

/** snake_case to words: `campaign_id` → "campaign id". */
const words = (code: string) => code.replaceAll('_', ' ')

/**
 * The API's error `detail` in a person's words, for a page (issue 36: no
 * "path: not_found"). A string detail is already a sentence; a structured
 * one is named by its field, with its reason in words; a 404 says what is
 * missing.
 */
export function errorMessage(status: number, detail: string | { field: string; reason: string }): string {
  if (typeof detail === 'string') return detail
  if (status === 404) {
    return detail.field === 'path' || !detail.field.endsWith('_id')
      ? 'Nothing was found at this address. The link may be mistyped, or what it led to was removed.'
      : `There is no ${words(detail.field.slice(0, -3))} with this id in your account. The link may be mistyped, or it was removed.`
  }
  return `The request was refused: ${words(detail.field)} (${words(detail.reason)}).`
}

/** Any page's error: what happened in words, and a way back. */
export function ErrorPage(props: { status: number; message: string; home?: NavItem; links?: NavItem[] }) {
  const links = props.links ?? [props.home ?? { href: '/portal', label: 'Go to the portal' }]
  const title = TITLES[props.status] ?? (props.status >= 500 ? 'Something went wrong' : 'That did not work')
  return (
    <Page title={title} area="public">
      <p>{props.message}</p>
      <p class="muted">Error {props.status}.</p>
      {links.length === 1 ? (
        <p>
          <a href={links[0]!.href}>{links[0]!.label}</a>
        </p>
      ) : (
        <ul>
          {links.map((l) => (
            <li>
              <a href={l.href}>{l.label}</a>
            </li>
          ))}
        </ul>
      )}
    </Page>
  )
}
