import type { App, RouteDeps } from '../../types.ts'
import { errors, IdParams } from '../../schemas/common.ts'
import { CreativeListSchema, CreativeSchema } from '../../schemas/creatives.ts'
import { presentCreative } from '../../presenters.ts'
import { notFound } from '../../../domain/errors.ts'
import { findCreativeGraph, listCreatives } from '../../../store/campaigns.ts'

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
        creatives: (await listCreatives(deps.db, request.account.user_id, CREATIVE_COLLECTION_LIMIT)).map(presentCreative),
      }),
    )

    app.get(
      '/creatives/:creative_id',
      {
        schema: {
          summary: 'One creative',
          description: 'Metrics are returned only with contiguous closed-day rollup coverage; otherwise null with `temporarily_unavailable`.',
          tags: ['creatives'],
          params: IdParams('creative_id'),
          response: { 200: CreativeSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => {
        const graph = await findCreativeGraph(deps.db, request.account.user_id, request.params.creative_id)
        if (!graph) throw notFound('creative')
        return presentCreative(graph)
      },
    )
  }
}
