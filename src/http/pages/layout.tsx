import type { ComponentChildren } from 'preact'

/** Where a page belongs: the portal (signed in or not), the public pages, or the operator console. */
export type Area = 'portal' | 'portal-public' | 'public' | 'ops' | 'ops-public'

export interface NavItem {
  href: string
  label: string
}

const PORTAL_NAV: NavItem[] = [
  { href: '/portal', label: 'Overview' },
  { href: '/portal/campaigns', label: 'Campaigns' },
  { href: '/portal/stats', label: 'Stats' },
  { href: '/portal/exports', label: 'Exports' },
  { href: '/portal/webhooks', label: 'Webhooks' },
  { href: '/portal/billing', label: 'Billing' },
  { href: '/portal/key', label: 'API key' },
  { href: '/portal/terms', label: 'Terms' },
]

/** The public pages' small navigation (no sign-in); the brand beside it leads to the home page `/`. */
const PUBLIC_NAV: NavItem[] = [
  { href: '/status', label: 'Status' },
  { href: '/leaderboard', label: 'Leaderboard' },
  { href: '/transparency', label: 'Transparency' },
  { href: '/docs', label: 'API reference' },
]

export interface PageProps {
  /** The document title's first part; " · Advertiser portal" (or the area's name) is appended. */
  title: string
  /** The page's one heading; defaults to the title. */
  heading?: string
  area: Area
  /** The path of the page, to mark the current navigation entry. */
  path?: string
  /** For signed-in pages: the CSRF token of the sign-out form and whom the page is for. */
  session?: { csrf: string; who: string }
  /** Extra navigation (the operator console's). */
  nav?: NavItem[]
  /** A notice shown above the content (after a redirect, e.g. "Campaign paused."). */
  flash?: string | null
  /** A public page that search engines should still not index (a shared report). */
  noindex?: boolean
  /** Reload the page every N seconds while it is visible (progress pages); JavaScript only. */
  refreshSeconds?: number
  /** Extra same-origin stylesheets and scripts (deferred, after site.js) of one page, e.g. the API reference's. */
  stylesheets?: string[]
  scripts?: string[]
  children?: ComponentChildren
}

const AREA_NAME: Record<Area, string> = {
  portal: 'Advertiser portal',
  'portal-public': 'Advertiser portal',
  public: 'Thinking-line ads',
  ops: 'Operator console',
  'ops-public': 'Operator console',
}

/** Where the brand leads: the home page `/` from the portal and the public pages (issue 35); the console keeps to itself. */
const HOME: Record<Area, string> = { portal: '/', 'portal-public': '/', public: '/', ops: '/ops', 'ops-public': '/ops/login' }

/** The public pages' way into the portal, at the header's end. */
const ACCOUNT_LINKS: NavItem[] = [
  { href: '/portal/login', label: 'Sign in' },
  { href: '/portal/signup', label: 'Sign up' },
]

function isCurrent(item: NavItem, path: string | undefined): boolean {
  if (!path) return false
  if (item.href === '/portal' || item.href === '/ops') return path === item.href
  return path === item.href || path.startsWith(item.href + '/')
}

function NavList(props: { items: NavItem[]; path: string | undefined; class: string }) {
  return (
    <ul class={props.class}>
      {props.items.map((item) => (
        <li>
          <a href={item.href} aria-current={isCurrent(item, props.path) ? 'page' : undefined}>
            {item.label}
          </a>
        </li>
      ))}
    </ul>
  )
}

/**
 * The main navigation: a tab bar on a wide screen; below 720 px (site.css) a
 * "Menu" disclosure naming the current page, which opens the same links as a
 * list (a <details>, so it works without JavaScript). Only one of the two is
 * displayed at a time, so a reader meets each link once. A navigation of four
 * links or fewer (the public pages') stays a tab bar: it fits a phone.
 */
function MainNav(props: { items: NavItem[]; path: string | undefined }) {
  const current = props.items.find((item) => isCurrent(item, props.path))
  // A short navigation (the public pages') fits a phone as it is.
  const collapses = props.items.length > 4
  return (
    <nav aria-label="Main" class={collapses ? 'nav collapses' : 'nav'}>
      <NavList items={props.items} path={props.path} class="nav-tabs" />
      {collapses ? (
        <details class="nav-menu">
          <summary>
            <span class="nav-menu-word">Menu</span>
            {current ? (
              <span class="nav-menu-current">
                <span class="visually-hidden">, this page: </span>
                {current.label}
              </span>
            ) : null}
          </summary>
          <NavList items={props.items} path={props.path} class="nav-menu-list" />
        </details>
      ) : null}
    </nav>
  )
}

/** The frame of every page: one <h1>, a <title>, a skip link, navigation, the stylesheet and the enhancement script (no inline code). */
export function Page(props: PageProps) {
  const nav = props.nav ?? (props.area === 'portal' ? PORTAL_NAV : props.area === 'public' ? PUBLIC_NAV : [])
  const signOutAction = props.area === 'ops' ? '/ops/logout' : '/portal/logout'
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        {props.area === 'public' && !props.noindex ? null : <meta name="robots" content="noindex" />}
        <title>{`${props.title} · ${AREA_NAME[props.area]}`}</title>
        <link rel="stylesheet" href="/assets/site.css" />
        {(props.stylesheets ?? []).map((href) => (
          <link rel="stylesheet" href={href} />
        ))}
        <link rel="icon" href="data:," />
        <script src="/assets/site.js" defer></script>
        {(props.scripts ?? []).map((src) => (
          <script src={src} defer></script>
        ))}
      </head>
      <body data-refresh={props.refreshSeconds}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <div class="top-inner">
            <a class="brand" href={HOME[props.area]}>
              <span class="brand-mark" aria-hidden="true">
                ✻
              </span>{' '}
              {AREA_NAME[props.area]}
            </a>
            {props.session ? (
              <form method="post" action={signOutAction} class="signout">
                <input type="hidden" name="_csrf" value={props.session.csrf} />
                <span class="who">{props.session.who}</span>
                <button type="submit" class="link-button">
                  Sign out
                </button>
              </form>
            ) : props.area === 'public' ? (
              <nav aria-label="Account" class="account-links">
                {ACCOUNT_LINKS.map((item) => (
                  <a href={item.href}>{item.label}</a>
                ))}
              </nav>
            ) : null}
          </div>
          {nav.length > 0 ? <MainNav items={nav} path={props.path} /> : null}
        </header>
        <main id="main" tabIndex={-1}>
          <h1>{props.heading ?? props.title}</h1>
          {props.flash ? (
            <p class="flash" role="status">
              {props.flash}
            </p>
          ) : null}
          {props.children}
        </main>
      </body>
    </html>
  )
}
