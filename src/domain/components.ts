import { ApiError, NOT_ACCEPTING_ORDERS } from './errors.ts'
import { rollupsBehind } from './stats.ts'

/**
 * The service's components as GET /status lists them, and the states an
 * operator sets on them (PUT /admin/v1/components/{component}). A component
 * without a stored state is operational.
 */
export const COMPONENTS = ['api', 'site_proxy', 'authentication', 'campaign_creation', 'reporting', 'exports', 'invoicing'] as const
export type Component = (typeof COMPONENTS)[number]

/** What an operator may set. */
export const SETTABLE_STATES = ['operational', 'degraded', 'disabled'] as const
/** What clients are shown: a stored state the service does not know is `unknown`, never passed through. */
export const COMPONENT_STATES = [...SETTABLE_STATES, 'unknown'] as const
export type ComponentState = (typeof COMPONENT_STATES)[number]

/** A stored state as shown: none is operational; a value the service does not know is `unknown`. */
export function componentState(stored: string | undefined): ComponentState {
  if (stored === undefined) return 'operational'
  return SETTABLE_STATES.find((s) => s === stored) ?? 'unknown'
}

/** The components whose use cases an operator can switch off, and what a refused call answers (503). */
export const DISABLED_DETAIL = {
  campaign_creation: NOT_ACCEPTING_ORDERS,
  reporting: 'reporting is temporarily unavailable; retry later',
  exports: 'exports are disabled by the operator (component `exports`); queued jobs wait, retry later',
} as const
export type SwitchableComponent = keyof typeof DISABLED_DETAIL

export function componentDisabled(stored: ReadonlyMap<string, string>, component: SwitchableComponent): boolean {
  return componentState(stored.get(component)) === 'disabled'
}

/** A disabled component refuses its use cases with 503 and the component's message. */
export function refuseIfDisabled(stored: ReadonlyMap<string, string>, component: SwitchableComponent): void {
  if (componentDisabled(stored, component)) throw new ApiError(503, DISABLED_DETAIL[component])
}

/**
 * The reporting state advertised to accounts and on /status: an operator-set
 * state wins; an operational component reads `degraded` while the rollups
 * are behind (`rollupsBehind`).
 */
export function reportingState(stored: string | undefined, rolledThrough: string | null, nowMs: number): ComponentState {
  const set = componentState(stored)
  if (set !== 'operational') return set
  return rollupsBehind(rolledThrough, nowMs) ? 'degraded' : 'operational'
}

/**
 * Reporting covers the ledger (closed-day rollups contiguous and the
 * component operational) only in the `operational` state: then exact
 * metrics may be shown. Accounts see every other state as `degraded`.
 */
export const reportingCovered = (state: ComponentState): boolean => state === 'operational'

/** GET /status: every component's state, reporting derived as above. */
export function componentStatus(stored: ReadonlyMap<string, string>, rolledThrough: string | null, nowMs: number): Record<Component, ComponentState> {
  const state = (c: Component) => componentState(stored.get(c))
  return {
    api: state('api'),
    site_proxy: state('site_proxy'),
    authentication: state('authentication'),
    campaign_creation: state('campaign_creation'),
    reporting: reportingState(stored.get('reporting'), rolledThrough, nowMs),
    exports: state('exports'),
    invoicing: state('invoicing'),
  }
}
