import type { ComponentChildren } from 'preact'
import { Page, type NavItem } from '../layout.tsx'

/** The operator console's frame: its navigation (Clock only under a manual clock), the signed-in operator and the sign-out form. */
export interface OpsFrame {
  csrf: string
  email: string
  manualClock: boolean
  flash?: string | null
}

/** Where an error page of the console leads back to. */
export const OPS_HOME = { href: '/ops', label: 'Go to the operator console' }

const NAV: NavItem[] = [
  { href: '/ops/accounts', label: 'Accounts' },
  { href: '/ops/moderation', label: 'Moderation' },
  { href: '/ops/traffic', label: 'Traffic quality' },
  { href: '/ops/components', label: 'Components' },
  { href: '/ops/config', label: 'Config' },
  { href: '/ops/invoices', label: 'Invoices' },
  { href: '/ops/jobs', label: 'Jobs' },
  { href: '/ops/clock', label: 'Clock' },
  { href: '/ops/audit', label: 'Audit log' },
]

export function OpsPage(props: { frame: OpsFrame; title: string; heading?: string; path: string; children?: ComponentChildren }) {
  const { frame } = props
  const nav = frame.manualClock ? NAV : NAV.filter((item) => item.href !== '/ops/clock')
  return (
    <Page
      title={props.title}
      heading={props.heading}
      area="ops"
      path={props.path}
      nav={nav}
      session={{ csrf: frame.csrf, who: frame.email }}
      flash={frame.flash}
    >
      {props.children}
    </Page>
  )
}

/** A page's next page of a list, when there is one. */
export function NextPage(props: { href: string | null; label?: string }) {
  return props.href ? (
    <p class="pager">
      <a href={props.href}>{props.label ?? 'Next page'}</a>
    </p>
  ) : null
}
