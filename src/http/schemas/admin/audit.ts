import { Type } from 'typebox'
import { DateTime, NextCursor, Nullable, PageQuerySchema, StringEnum } from '../common.ts'
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, AUDIT_TARGET_KINDS } from '../../../domain/audit.ts'

export const AuditQuery = Type.Object(
  {
    action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only entries of this action.' })),
    target_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only entries about this target (a user id, an invoice id, an address…).' })),
    ...PageQuerySchema.properties,
  },
  { additionalProperties: false },
)

const Snapshot = Nullable(
  Type.Object({}, { additionalProperties: true, description: 'The target as it was (never a secret: no key, password, card number or token).' }),
)

export const AuditEntrySchema = Type.Object({
  entry_id: Type.Integer(),
  at: DateTime,
  actor: Type.Object({
    kind: StringEnum(AUDIT_ACTOR_KINDS, { description: '`operator`: signed in to the console; `token`: a caller of this API.' }),
    operator_id: Nullable(Type.String()),
    email: Nullable(Type.String({ description: "The operator's email." })),
  }),
  action: StringEnum(AUDIT_ACTIONS),
  target: Type.Object({ kind: StringEnum(AUDIT_TARGET_KINDS), id: Nullable(Type.String()) }),
  before: Snapshot,
  after: Snapshot,
  source_address: Type.String(),
})

export const AuditListSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema, { description: 'Newest first.' }),
  next_cursor: NextCursor,
})
