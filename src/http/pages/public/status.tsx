import { Page } from '../layout.tsx'
import { COMPONENTS, type Component, type ComponentState } from '../../../domain/components.ts'
import type { WRITE_REQUIREMENTS } from '../../../domain/access.ts'
import { DataTable } from '../data-table.tsx'

/** Refresh interval of the status page while it is visible (the Page's `refreshSeconds`, JavaScript only). */
export const STATUS_REFRESH_SECONDS = 30

export interface StatusView {
  components: Record<Component, ComponentState>
  writeRequirements: readonly (typeof WRITE_REQUIREMENTS)[number][]
  generatedAt: Date
}

/** Each state in words, with a mark whose shape differs too (never colour alone). */
const STATES: Record<ComponentState, { word: string; mark: string; tone: string; meaning: string }> = {
  operational: { word: 'Operational', mark: '✓', tone: 'ok', meaning: 'Working normally.' },
  degraded: { word: 'Degraded', mark: '!', tone: 'warn', meaning: 'Working, but slower or with less than usual.' },
  disabled: { word: 'Disabled', mark: '✕', tone: 'bad', meaning: 'Switched off by an operator.' },
  unknown: { word: 'Unknown', mark: '?', tone: 'unknown', meaning: 'The service cannot tell this state right now.' },
}

/** What each component covers, and what its non-operational states mean for clients. */
const COMPONENT_TEXT: Record<Component, { name: string; covers: string; degraded?: string; disabled?: string }> = {
  api: { name: 'API', covers: 'The advertiser API under /v1.' },
  site_proxy: { name: 'Site proxy', covers: 'The web front door: the portal and these pages.' },
  authentication: { name: 'Authentication', covers: 'API keys, portal sign-in and the address lockout.' },
  campaign_creation: {
    name: 'Campaign creation',
    covers: 'New campaigns (POST /v1/campaigns and the portal form).',
    disabled: 'New campaigns are refused with 503 (not accepting orders); existing campaigns keep serving.',
  },
  reporting: {
    name: 'Reporting',
    covers: 'Delivery statistics and metrics (GET /v1/stats, the portal charts).',
    degraded: 'The daily rollups are behind: statistics are read from the live ledger, so large windows may be slow or refused.',
    disabled: 'Statistics answer 503 until it is switched back on.',
  },
  exports: {
    name: 'Exports',
    covers: 'CSV exports of the ledger (POST /v1/exports).',
    disabled: 'New exports and downloads answer 503; queued exports wait and run once it is back.',
  },
  invoicing: { name: 'Invoicing', covers: 'Weekly auto-pay charges and Net 30 invoices.' },
}

const REQUIREMENT_TEXT: Record<(typeof WRITE_REQUIREMENTS)[number], { name: string; text: string }> = {
  write_approval: { name: 'Write approval', text: 'An operator approves each new account by hand, usually within one business day.' },
  api_terms: { name: 'API terms', text: 'The account accepts the current API terms in the portal (Terms).' },
  billing_enrollment: {
    name: 'Billing enrollment',
    text: 'Weekly auto-pay with a card, or approved Net 30 invoicing, set up in the portal (Billing), with no failed payment outstanding.',
  },
}

function StateLabel(props: { state: ComponentState }) {
  const s = STATES[props.state]
  return (
    <span class={`state state-${s.tone}`}>
      <span class="state-mark" aria-hidden="true">
        {s.mark}
      </span>
      {s.word}
    </span>
  )
}

const seconds = (d: Date) => `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`

/** `/status`: every component of GET /v1/status in words, the write requirements, and when the page was made (pure rendering). */
export function StatusPage(props: StatusView) {
  const states = COMPONENTS.map((c) => props.components[c])
  const worst: ComponentState = states.includes('disabled')
    ? 'disabled'
    : states.includes('degraded')
      ? 'degraded'
      : states.includes('unknown')
        ? 'unknown'
        : 'operational'
  const summary =
    worst === 'operational'
      ? 'All components are operational.'
      : `${states.filter((s) => s !== 'operational').length} of ${states.length} components are not fully operational.`
  return (
    <Page title="Service status" area="public" path="/status" refreshSeconds={STATUS_REFRESH_SECONDS} stylesheets={['/assets/public.css']}>
      <p class="status-summary">
        <StateLabel state={worst} /> {summary}
      </p>
      <p class="muted">
        Generated <time dateTime={props.generatedAt.toISOString()}>{seconds(props.generatedAt)}</time> on the service clock. With JavaScript on, this
        page reloads itself every {STATUS_REFRESH_SECONDS} seconds while it is visible; otherwise reload it to see changes.
      </p>
      <DataTable
        label="Component states"
        columns={['Component', 'State', 'What it means']}
        stack
        captionClass="visually-hidden"
        caption="Component states"
      >
        {COMPONENTS.map((c) => {
          const state = props.components[c]
          const text = COMPONENT_TEXT[c]
          const specific = state === 'degraded' ? text.degraded : state === 'disabled' ? text.disabled : undefined
          return (
            <tr id={`component-${c}`}>
              <th scope="row">
                {text.name}
                <span class="component-key">
                  <code>{c}</code>
                </span>
              </th>
              <td>
                <StateLabel state={state} />
              </td>
              <td>
                {text.covers} {specific ?? STATES[state].meaning}
              </td>
            </tr>
          )
        })}
      </DataTable>
      <h2>What an account needs before it can write</h2>
      <p>
        Creating, changing, pausing, resuming or cancelling campaigns needs all of these, per account. Reads work without them. A write that misses
        approval or terms answers 403; one that misses billing answers 402.
      </p>
      <ol class="requirements">
        {props.writeRequirements.map((r) => (
          <li>
            <strong>{REQUIREMENT_TEXT[r].name}</strong> (<code>{r}</code>): {REQUIREMENT_TEXT[r].text}
          </li>
        ))}
      </ol>
      <p class="muted">
        The same states for programs: <code>GET /v1/status</code> (no key needed).
      </p>
    </Page>
  )
}
