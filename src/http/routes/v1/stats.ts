import type { App, RouteDeps } from '../../types.ts'
import { errors } from '../../schemas/common.ts'
import { StatsQuerySchema, StatsSchema } from '../../schemas/stats.ts'
import { getStats } from '../../../services/stats.ts'

export function statsRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get(
      '/stats',
      {
        schema: {
          summary: 'Delivery metrics',
          description:
            'Default window: the last seven complete UTC days (the end may be a day earlier while that day is still being rolled up). ' +
            'Range ceilings: hour 31 days, day 731 days, month 3,653 days (400 `range_too_large`). ' +
            '`served_from` is `daily_rollup` for day/month granularity with both bounds on UTC midnight, no country filter and ' +
            'group_by=account, when rollups cover the window; otherwise `ledger`. A live scan estimated above the operator limit is ' +
            'refused at once: 400 `{field: "start", reason: "window_too_costly", estimated_events, max_events, retry_with?: ' +
            '{start, end, granularity}}`, where retry_with (never the window sent) is the window snapped to whole days when rollups ' +
            'can serve it, or the longest window with the same end that fits. Ledger rows are kept LEDGER_RETENTION_DAYS (default 400) ' +
            'once rolled up: a window read from the ledger (served_from `ledger`, or an hourly window\'s partial days) starting before ' +
            'the oldest day kept is 400 `{field: "start", reason: "beyond_retention", oldest_available_day}`; whole days without a ' +
            'country filter still come from the rollups. Unavailable reporting is 503, never zeros. ' +
            'Every MetricSet carries `non_billable`: the recorded views that were not billable, by reason (always all six keys), ' +
            'on both paths; billable_impressions plus their sum is the recorded views of the bucket, exactly.',
          tags: ['reporting'],
          querystring: StatsQuerySchema,
          response: { 200: StatsSchema, ...errors(400, 401, 404, 429, 503) },
        },
      },
      async (request) => getStats(deps, request.account.user_id, request.query),
    )
  }
}
