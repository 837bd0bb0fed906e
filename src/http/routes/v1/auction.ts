import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { QuoteQuerySchema, QuoteSchema } from '../../schemas/quote.ts'
import { quoteBid } from '../../../services/auction-quote.ts'

export function auctionRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/auction/quote',
      {
        schema: {
          summary: 'Quote a bid before buying',
          description:
            'Where a campaign with this bid and targeting would stand in the live auction if it were created now, how much ' +
            'inventory is queued ahead of it, the price level currently winning that traffic, and when it would start and ' +
            'finish delivering at the recent fill rate. A read (it counts against config.read_rate_limit_per_min) that writes ' +
            'nothing; it needs no write access. The answer never names, counts or prices another advertiser\'s campaign beyond ' +
            'the rank, the queued impressions and the rounded clearing price. Parameters are judged with the rules and reasons ' +
            'of `POST /campaigns` under the live config (400 `{field, reason}`). The queue and traffic it is computed from may ' +
            'be a few seconds old (read from a replica, at most its lag bound behind: 5 s unless the operator sets another).',
          tags: ['campaigns'],
          querystring: QuoteQuerySchema,
          response: { 200: QuoteSchema, ...errors(400, 401, 429, 503) },
        },
      },
      async (request) => quoteBid(deps, request.query),
    )
  }
}
