import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { TrafficBlockCreateSchema, TrafficBlockListSchema, TrafficBlockParams, TrafficBlockSchema, TrafficDaySchema, TrafficQuery } from '../../schemas/admin/traffic.ts'
import { asOperator } from '../../operator-context.ts'
import { presentTrafficBlock, presentTrafficDay } from '../../presenters-traffic.ts'
import { addTrafficBlock, removeTrafficBlock } from '../../../services/operator-actions.ts'
import { listTrafficBlockEntries } from '../../../services/traffic-blocks.ts'
import { defaultTrafficDay, judgeTrafficDay } from '../../../services/traffic-quality.ts'

const tags = ['traffic']

/** Invalid traffic (docs/invalid-traffic.md): a day's sources and viewers by score, and the block list. */
export function adminTrafficRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/traffic',
      {
        schema: {
          summary: "A day's traffic quality",
          description:
            'Every source (IPv4 address or IPv6 /64) and viewer key with views or clicks on the UTC day, scored by the review signals ' +
            '(docs/invalid-traffic.md) against the block list as it is now; score 60 or more is invalid, and the daily review voids its ' +
            "billable units. With the review's record of the day and the credits it issued. 400 `invalid_format` for a `day` that is not " +
            'a calendar day.',
          tags,
          querystring: TrafficQuery,
          response: { 200: TrafficDaySchema },
        },
      },
      async (request) => presentTrafficDay(await judgeTrafficDay(deps, request.query.day ?? defaultTrafficDay(deps))),
    )

    app.get(
      '/traffic/blocks',
      {
        schema: {
          summary: 'The block list',
          description: 'Address ranges and viewer keys whose views and clicks never bill (reason `invalid_traffic`), newest first.',
          tags,
          response: { 200: TrafficBlockListSchema },
        },
      },
      async () => ({ blocks: (await listTrafficBlockEntries(deps)).map(presentTrafficBlock) }),
    )

    app.post(
      '/traffic/blocks',
      {
        schema: {
          summary: 'Block an address range or a viewer',
          description:
            'From the next view or click on this instance, within seconds on the others, the range\'s sources or the viewer never bill ' +
            '(reason `invalid_traffic`); decisions are still answered. 201 with the new entry; 200 with the entry already listed for that ' +
            'kind and value. A CIDR is stored in canonical text.',
          tags,
          body: TrafficBlockCreateSchema,
          response: { 201: TrafficBlockSchema, 200: TrafficBlockSchema },
        },
      },
      async (request, reply) => {
        const { row, created } = await addTrafficBlock(asOperator(deps, request), request.body)
        await deps.servingLimits.reloadNow()
        return reply.code(created ? 201 : 200).send(presentTrafficBlock(row))
      },
    )

    app.delete(
      '/traffic/blocks/:block_id',
      {
        schema: {
          summary: 'Remove a block',
          description: 'The range or viewer bills again from the next view or click (within seconds on other instances). 200 with the removed entry.',
          tags,
          params: TrafficBlockParams,
          response: { 200: TrafficBlockSchema, ...errors(404) },
        },
      },
      async (request) => {
        const removed = await removeTrafficBlock(asOperator(deps, request), request.params.block_id)
        await deps.servingLimits.reloadNow()
        return presentTrafficBlock(removed)
      },
    )
  }
}
