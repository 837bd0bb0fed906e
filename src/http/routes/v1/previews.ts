import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { errors, IdParams } from '../../schemas/common.ts'
import { PreviewCreatedSchema, PreviewCreateSchema, RevokedSchema } from '../../schemas/previews.ts'
import { disclosedAd, type PreviewContent } from '../../../domain/preview.ts'
import type { Surface } from '../../../domain/auction.ts'
import { previewCampaign, previewCreative, revokeOwnedPreview } from '../../../services/previews.ts'

export function previewUrl(publicUrl: string, token: string): string {
  return `${publicUrl}/preview/${token}`
}

function renderPayload(c: PreviewContent) {
  const surfaces: Surface[] = c.target_surface === 'both' ? ['terminal', 'extension'] : [c.target_surface]
  // Both clients show the same disclosed text: the terminal's status line, the editor's status bar item.
  const shown = disclosedAd(c.ad_line, c.brand)
  return {
    ad_line: c.ad_line,
    brand: c.brand,
    icon_url: c.icon_url,
    destination_url: c.destination_url,
    surfaces,
    terminal_line: surfaces.includes('terminal') ? shown : null,
    extension_line: surfaces.includes('extension') ? shown : null,
  }
}

export function previewRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/preview',
      {
        schema: {
          summary: 'Preview an unfunded creative',
          description:
            'A 24-hour, presentation-only capability: no impression, view, click, redirect, auction, charge or ledger row. ' +
            'The line is validated and screened as on create (400 when it would be refused). Not an idempotent operation: each call mints a new token.',
          tags: ['previews'],
          body: PreviewCreateSchema,
          response: { 201: PreviewCreatedSchema, ...errors(400, 401, 429) },
        },
      },
      async (request, reply) => {
        const { token, row, content } = await previewCreative(deps, request.account.user_id, request.body)
        return reply.code(201).send({
          preview_token: token,
          preview_url: previewUrl(deps.settings.publicUrl, token),
          expires_at: row.expires_at.toISOString(),
          render: renderPayload(content),
        })
      },
    )

    app.post(
      '/campaigns/:campaign_id/preview',
      {
        schema: {
          summary: 'Preview an owned campaign',
          description: "Snapshots the campaign's current creative into a 24-hour preview; later edits do not change it.",
          tags: ['previews'],
          params: IdParams('campaign_id'),
          response: { 201: PreviewCreatedSchema, ...errors(401, 404, 429) },
        },
      },
      async (request, reply) => {
        const { token, row } = await previewCampaign(deps, request.account.user_id, request.params.campaign_id)
        return reply.code(201).send({
          preview_token: token,
          preview_url: previewUrl(deps.settings.publicUrl, token),
          expires_at: row.expires_at.toISOString(),
        })
      },
    )

    app.delete(
      '/previews/:preview_token',
      {
        schema: {
          summary: 'Revoke a preview',
          description: "Revoking is idempotent. Another account's or an unknown token is 404.",
          tags: ['previews'],
          params: Type.Object({ preview_token: Type.String({ minLength: 1, maxLength: 128 }) }),
          response: { 200: RevokedSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => {
        await revokeOwnedPreview(deps, request.account.user_id, request.params.preview_token)
        return { preview_token: request.params.preview_token, revoked: true as const }
      },
    )
  }
}
