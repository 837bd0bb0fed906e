import type { App, RouteDeps } from '../../types.ts'
import { errors, IdParams } from '../../schemas/common.ts'
import { CreativeListSchema, CreativeSchema } from '../../schemas/creatives.ts'
import { presentCreative } from '../../presenters.ts'
import { listAccountCreatives, readCreative } from '../../../services/creatives.ts'

export const CREATIVE_COLLECTION_LIMIT = 500

export function creativeRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/creatives',
      {
        schema: {
          summary: 'List creatives',
          description: `Newest first, bounded to ${CREATIVE_COLLECTION_LIMIT} rows. Metrics are always null here (\`temporarily_unavailable\`).`,
          tags: ['creatives'],
          response: { 200: CreativeListSchema, ...errors(401, 429) },
        },
      },
      async (request) => ({
        creatives: (await listAccountCreatives(deps, request.account.user_id, CREATIVE_COLLECTION_LIMIT)).map((g) => presentCreative(g)),
      }),
    )

    app.get(
      '/creatives/:creative_id',
      {
        schema: {
          summary: 'One creative',
          description:
            'With contiguous closed-day rollup coverage (rollups closed through yesterday and reporting operational) the metrics are ' +
            '`complete`: exact all-time figures from the ledger. Otherwise they are null with `temporarily_unavailable`.',
          tags: ['creatives'],
          params: IdParams('creative_id'),
          response: { 200: CreativeSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => {
        const { graph, metrics } = await readCreative(deps, request.account.user_id, request.params.creative_id)
        return presentCreative(graph, metrics)
      },
    )
  }
}
