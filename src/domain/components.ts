/**
 * The service's components and their system-wide states (advertiser spec, GET /status). An operator sets a
 * component's state; one never set is `operational`.
 */
export const COMPONENTS = ['api', 'site_proxy', 'authentication', 'campaign_creation', 'reporting', 'exports', 'invoicing'] as const
export type Component = (typeof COMPONENTS)[number]

/** What an operator may set. */
export const SETTABLE_STATES = ['operational', 'degraded', 'disabled'] as const
/** What clients are shown: a stored state the service does not know is `unknown`, never passed through. */
export const COMPONENT_STATES = [...SETTABLE_STATES, 'unknown'] as const
export type ComponentState = (typeof COMPONENT_STATES)[number]

export function componentState(stored: string | undefined): ComponentState {
  if (stored === undefined) return 'operational'
  return SETTABLE_STATES.find((s) => s === stored) ?? 'unknown'
}

/** Every component's state, from the stored ones (by component name). */
export function componentStates(stored: ReadonlyMap<string, string>): Record<Component, ComponentState> {
  const of = (c: Component) => componentState(stored.get(c))
  return {
    api: of('api'),
    site_proxy: of('site_proxy'),
    authentication: of('authentication'),
    campaign_creation: of('campaign_creation'),
    reporting: of('reporting'),
    exports: of('exports'),
    invoicing: of('invoicing'),
  }
}
