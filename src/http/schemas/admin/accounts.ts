import { Type } from 'typebox'

export const UserParams = Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 64 }) })

export const AccountCreateSchema = Type.Object(
  { email: Type.String({ format: 'email', maxLength: 254 }), billing_email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })) },
  { additionalProperties: false },
)
export const AccountCreatedSchema = Type.Object({
  user_id: Type.String(),
  api_key: Type.String({ description: 'The live API key, shown once: only its digest is stored.' }),
})

export const WriteApprovalSchema = Type.Object({ approved: Type.Boolean() }, { additionalProperties: false })
export const WriteApprovalResultSchema = Type.Object({ user_id: Type.String(), write_approved: Type.Boolean() })

export const TermsSchema = Type.Object({ accepted: Type.Boolean() }, { additionalProperties: false })
export const TermsResultSchema = Type.Object({ user_id: Type.String(), terms_accepted: Type.Boolean() })

export const WritesSchema = Type.Object(
  { enabled: Type.Boolean({ description: 'False switches the account\'s writes off (`access.campaign_writes: disabled`).' }) },
  { additionalProperties: false },
)
export const WritesResultSchema = Type.Object({ user_id: Type.String(), writes_enabled: Type.Boolean() })

export const RotatedKeySchema = Type.Object({
  api_key: Type.String({ description: 'The new key, shown once; the previous key stops working at once.' }),
})
