import { Type } from 'typebox'
import { DateTime } from '../common.ts'

export const OutboxQuerySchema = Type.Object(
  { to: Type.String({ minLength: 1, maxLength: 254, description: 'The recipient address, exactly as the message was sent to it.' }) },
  { additionalProperties: false },
)

export const OutboxMessageSchema = Type.Object({
  to: Type.String(),
  subject: Type.String(),
  text: Type.String({ description: 'The plain-text body.' }),
  sent_at: { ...DateTime, description: 'When the service sent it (service clock); the outbox keeps it before any SMTP attempt.' },
  delivery: Type.Enum(['stored', 'sent', 'failed'], {
    description: '`stored`: no SMTP_URL, kept here only; `sent`: the SMTP server accepted it; `failed`: the SMTP attempt failed (the message is still here).',
  }),
})

export const OutboxListSchema = Type.Object({
  messages: Type.Array(OutboxMessageSchema, { description: 'Newest first; at most the 100 most recent.' }),
})
