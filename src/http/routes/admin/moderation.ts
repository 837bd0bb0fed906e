import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { CampaignParams, ModerationQueueQuery, ModerationQueueSchema, ModerationResultSchema, ModerationSchema } from '../../schemas/admin/moderation.ts'
import { asOperator } from '../../operator-context.ts'
import { presentQueuedCreative } from '../../presenters.ts'
import { readModerationQueue } from '../../../services/moderation.ts'
import { moderateCampaign } from '../../../services/operator-actions.ts'

const tags = ['moderation']

/** The moderation queue and decisions on creatives. */
export function adminModerationRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/moderation',
      {
        schema: {
          summary: 'The moderation queue',
          description:
            'Creatives in `status` (`pending` by default) of campaigns that can still serve (active or paused), oldest first by when ' +
            'each entered it, with the content-safety verdict on the line; one page at a time (`limit`, `cursor`).',
          tags,
          querystring: ModerationQueueQuery,
          response: { 200: ModerationQueueSchema },
        },
      },
      async (request) => {
        const { status = 'pending', limit, cursor } = request.query
        const page = await readModerationQueue(deps, status, { limit, cursor })
        return { creatives: page.items.map(presentQueuedCreative), next_cursor: page.nextCursor }
      },
    )

    app.post(
      '/campaigns/:campaign_id/moderation',
      {
        schema: {
          summary: "Decide a campaign's creative",
          description:
            'Only `approved` creatives serve. A rejection may carry a `reason`, which the advertiser sees as the creative\'s ' +
            '`moderation_reason`; a `reason` with `approved` is 400 `rejection_only`. When the decision changes the creative (its ' +
            'status or reason) on an active or paused campaign, the account is emailed it once (the outbox keeps it): a repeated ' +
            'identical call emails nothing.',
          tags,
          params: CampaignParams,
          body: ModerationSchema,
          response: { 200: ModerationResultSchema, ...errors(404) },
        },
      },
      async (request) => moderateCampaign({ ...asOperator(deps, request), log: request.log }, request.params.campaign_id, request.body.status, request.body.reason),
    )
  }
}
