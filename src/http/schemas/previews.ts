import { Type } from 'typebox'
import { DateTime, ICON_URL_NOTE, Nullable, shownTextNote, StringEnum } from './common.ts'
import { SURFACES } from '../../domain/auction.ts'
import { PREVIEW_SURFACES } from '../../domain/campaign-order.ts'

export const PreviewCreateSchema = Type.Object(
  {
    ad_line: Type.String({ description: `3-60 user-perceived characters after trimming; screened like a campaign line. ${shownTextNote(60)}` }),
    destination_url: Type.String({ format: 'uri', maxLength: 500, description: 'https only; shown as text, not normalized.' }),
    brand: Type.Optional(Type.String({ description: `At most 120 characters. ${shownTextNote(120)}` })),
    icon_url: Type.Optional(Type.String({ maxLength: 12_000, description: ICON_URL_NOTE })),
    target_surface: Type.Optional(StringEnum(PREVIEW_SURFACES, { default: 'both' })),
  },
  { additionalProperties: false },
)

export const PreviewRenderSchema = Type.Object({
  ad_line: Type.String(),
  brand: Nullable(Type.String()),
  icon_url: Nullable(Type.String()),
  destination_url: Type.String(),
  surfaces: Type.Array(StringEnum(SURFACES)),
  terminal_line: Nullable(
    Type.String({ description: 'The line the terminal client prints: `Ad · {brand} · {ad_line}` (`Ad · {ad_line}` without a brand). Null when the preview does not cover the terminal.' }),
  ),
  extension_line: Nullable(
    Type.String({ description: "The editor extension's status bar item, the same text: `Ad · {brand} · {ad_line}`. Null when the preview does not cover the extension." }),
  ),
})

export const PreviewCreatedSchema = Type.Object({
  preview_token: Type.String({ description: 'Opaque capability; revoke with DELETE /previews/{preview_token}.' }),
  preview_url: Type.String({ format: 'uri', description: 'Public page; no telemetry; 410 once expired or revoked.' }),
  expires_at: DateTime,
  render: Type.Optional(PreviewRenderSchema),
})

export const RevokedSchema = Type.Object({ preview_token: Type.String(), revoked: Type.Literal(true) })
