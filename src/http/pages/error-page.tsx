import { Page, type NavItem } from './layout.tsx'

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Page not found',
  410: 'Gone',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
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
