import { Type } from 'typebox'
import { StringEnum } from '../common.ts'
import { LOCKOUT_SCOPES } from '../../../domain/rate-limits.ts'

export const UnlockSchema = Type.Object(
  { address: Type.String({ minLength: 1, maxLength: 64, description: 'The locked-out source address (IPv4 or IPv6), as the service saw it.' }) },
  { additionalProperties: false },
)

export const UnlockResultSchema = Type.Object({
  address: Type.String(),
  lifted: Type.Array(StringEnum(LOCKOUT_SCOPES), {
    description: 'The lockouts that held: `api` (API keys), `portal` (portal sign-in), `console` (console sign-in), `setup` (console setup), `admin` (the operator token). Empty: none did.',
  }),
})
