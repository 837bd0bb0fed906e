import { Type } from 'typebox'
import { StringEnum } from './common.ts'
import { COMPONENT_STATES, COMPONENTS, type Component } from '../../domain/components.ts'
import { WRITE_REQUIREMENTS } from '../../domain/access.ts'

export { COMPONENTS, type Component }

export const ComponentState = StringEnum(COMPONENT_STATES)

const S = ComponentState
// Listed, not mapped from COMPONENTS, so the type names every key; `satisfies` keeps the list equal to COMPONENTS.
const componentStates = {
  api: S,
  site_proxy: S,
  authentication: S,
  campaign_creation: S,
  reporting: S,
  exports: S,
  invoicing: S,
} satisfies Record<Component, typeof S>

export const StatusSchema = Type.Object({
  components: Type.Object(componentStates),
  write_requirements: Type.Array(StringEnum(WRITE_REQUIREMENTS), {
    description: 'Per-account prerequisites of campaign writes.',
  }),
})
