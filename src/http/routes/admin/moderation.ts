import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { CampaignParams, ModerationResultSchema, ModerationSchema } from '../../schemas/admin/moderation.ts'
import { moderateCampaign } from '../../../services/moderation.ts'

/** Moderation decisions on pending creatives. */
export function adminModerationRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.post(
      '/campaigns/:campaign_id/moderation',
      {
        schema: {
          summary: "Decide a campaign's creative",
          description: 'Only `approved` creatives serve. `reason` (optional) is kept with a rejection and shown to the advertiser as the creative\'s `moderation_reason`.',
          tags: ['moderation'],
          params: CampaignParams,
          body: ModerationSchema,
          response: { 200: ModerationResultSchema, ...errors(404) },
        },
      },
      async (request) => moderateCampaign(deps, request.params.campaign_id, request.body.status, request.body.reason),
    )
  }
}
