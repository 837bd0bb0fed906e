import { Type } from 'typebox'
import { COMPONENTS } from '../status.ts'

const SETTABLE_STATES = ['operational', 'degraded', 'disabled'] as const

export const ComponentParams = Type.Object({ component: Type.Enum(COMPONENTS) })

export const ComponentPutSchema = Type.Object(
  {
    state: Type.Enum(SETTABLE_STATES, {
      description: '`campaign_creation` `disabled` makes POST /v1/campaigns answer 503; `exports` `disabled` pauses the export worker.',
    }),
  },
  { additionalProperties: false },
)

export const ComponentStateSchema = Type.Object({ component: Type.Enum(COMPONENTS), state: Type.Enum(SETTABLE_STATES) })
