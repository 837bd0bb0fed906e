import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { renderDocument } from '../../pages/render.ts'
import { ReportPage } from '../../pages/public/report.tsx'
import { limitByAddress } from '../../plugins/auth.ts'
import { STATUS_RATE_PER_MIN } from '../v1/status.ts'
import { publicReportReader } from '../../../services/public-report.ts'
import { etagOf, notModified } from './cache.ts'

/**
 * `GET /reports/<report_uuid>` (operations.md section 5): no sign-in, no
 * cookie, no account data. A revoked or unknown uuid is 404. Each view spends
 * the per-address budget of the public reads (GET /v1/status, /status,
 * /leaderboard), and a report's figures are read once a minute per instance
 * (services/public-report.ts), so its page and ETag stay the same for that
 * minute. Revalidated on every view (`no-cache`), so "Stop sharing" takes
 * effect at once even in caches; `noindex`, because an advertiser shares a
 * link with some people, not with search engines.
 */
export function publicReportRoutes(deps: RouteDeps) {
  return async (app: App) => {
    const readPublicReport = publicReportReader(deps, (figures) => deps.metrics.publicReportView(figures))
    app.get(
      '/reports/:report_uuid',
      { onRequest: limitByAddress(deps, STATUS_RATE_PER_MIN), schema: { params: Type.Object({ report_uuid: Type.String({ maxLength: 100 }) }) } },
      async (request, reply) => {
        const report = await readPublicReport(request.params.report_uuid)
        const html = renderDocument(ReportPage({ report }))
        const etag = etagOf(html)
        reply.header('etag', etag).header('cache-control', 'public, no-cache').header('x-robots-tag', 'noindex')
        if (notModified(request, etag)) return reply.code(304).send()
        return reply.type('text/html; charset=utf-8').send(html)
      },
    )
  }
}
