import { Type } from 'typebox'
import { DateTime } from '../common.ts'

export const ClockSchema = Type.Union([
  // At most about three years per move: enough for any billing or reporting scenario.
  Type.Object({ advance_seconds: Type.Number({ minimum: 0, maximum: 100_000_000 }) }, { additionalProperties: false }),
  Type.Object({ now: { ...DateTime, description: 'The instant to move to: the current one or later.' } }, { additionalProperties: false }),
])

export const ClockResultSchema = Type.Object({ now: DateTime })
