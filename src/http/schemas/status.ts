import { Type } from 'typebox'

export const COMPONENTS = ['api', 'site_proxy', 'authentication', 'campaign_creation', 'reporting', 'exports', 'invoicing'] as const
export type Component = (typeof COMPONENTS)[number]

export const ComponentState = Type.String({ enum: ['operational', 'degraded', 'disabled', 'unknown'] })

export const StatusSchema = Type.Object({
  components: Type.Object(Object.fromEntries(COMPONENTS.map((c) => [c, ComponentState])) as Record<Component, typeof ComponentState>),
  write_requirements: Type.Array(Type.String({ enum: ['write_approval', 'api_terms', 'billing_enrollment'] }), {
    description: 'Per-account prerequisites of campaign writes.',
  }),
})
