import { Type } from 'typebox'
import { COMPONENTS, type Component } from '../../domain/components.ts'

export { COMPONENTS, type Component }

export const ComponentState = Type.String({ enum: ['operational', 'degraded', 'disabled', 'unknown'] })

export const StatusSchema = Type.Object({
  components: Type.Object(Object.fromEntries(COMPONENTS.map((c) => [c, ComponentState])) as Record<Component, typeof ComponentState>),
  write_requirements: Type.Array(Type.String({ enum: ['write_approval', 'api_terms', 'billing_enrollment'] }), {
    description: 'Per-account prerequisites of campaign writes.',
  }),
})
