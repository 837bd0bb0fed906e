import { Type } from 'typebox'
import { DateTime, NextCursor, Nullable, PageQuerySchema, StringEnum } from '../common.ts'
import { AccountSchema, BalanceSchema, BillingProfileSchema } from '../account.ts'
import { InvoiceSchema } from './invoices.ts'
import { COLLECTION_STATUSES, HOLDS } from '../../../domain/collection.ts'
import { BILLING_MODES } from '../../../domain/billing-schedule.ts'

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

export const AccountSearchQuery = Type.Object(
  {
    query: Type.Optional(
      Type.String({
        maxLength: 254,
        description: 'Part of the email (case-insensitive), or a whole user id. Empty or absent: every account.',
      }),
    ),
    ...PageQuerySchema.properties,
  },
  { additionalProperties: false },
)

export const AccountListItemSchema = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  billing_email: Nullable(Type.String()),
  created_at: DateTime,
  write_approved: Type.Boolean(),
  terms_accepted: Type.Boolean(),
  writes_enabled: Type.Boolean(),
  collection_status: StringEnum(COLLECTION_STATUSES),
  effective_billing_mode: StringEnum(['disabled', ...BILLING_MODES]),
})

export const AccountListSchema = Type.Object({
  accounts: Type.Array(AccountListItemSchema, { description: 'Newest first.' }),
  next_cursor: NextCursor,
})

export const OperatorAccountSchema = Type.Object({
  user_id: Type.String(),
  email: Type.String(),
  billing_email: Nullable(Type.String()),
  created_at: DateTime,
  portal_login: Type.Boolean({ description: 'The account has a portal sign-in (its advertiser set a password).' }),
  key_prefix: Type.String({ description: 'Leading part of the current API key; the key itself is never shown again.' }),
  key_created_at: DateTime,
  key_last_used_at: Nullable(DateTime),
  access: Type.Object({
    ...AccountSchema.properties.access.properties,
    writes_enabled: Type.Boolean({ description: "False: an operator switched the account's writes off." }),
  }),
  collection: Type.Object({
    status: StringEnum(COLLECTION_STATUSES, { description: 'As the advertiser sees it: an operator hold wins over the standing.' }),
    hold: Nullable(StringEnum(HOLDS, { description: '`paused`: charges held, delivery continues; `disabled`: delivery stops too.' })),
  }),
  billing_profile: BillingProfileSchema,
  balance: BalanceSchema,
  invoices: Type.Array(InvoiceSchema, { description: 'Newest period first.' }),
})
