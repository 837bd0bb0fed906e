import { createHash } from 'node:crypto'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { renderDocument } from '../../pages/render.ts'
import { ReportPage } from '../../pages/public/report.tsx'
import { readPublicReport } from '../../../services/public-report.ts'

/**
 * `GET /reports/<report_uuid>` (operations.md section 5): no sign-in, no
 * cookie, no account data. A revoked or unknown uuid is 404. Cached with an
 * ETag of the page but revalidated on every view (`no-cache`), so "Stop
 * sharing" takes effect at once even in caches; `noindex`, because an
 * advertiser shares a link with some people, not with search engines.
 */
export function publicReportRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/reports/:report_uuid', { schema: { params: Type.Object({ report_uuid: Type.String({ maxLength: 100 }) }) } }, async (request, reply) => {
      const report = await readPublicReport(deps, request.params.report_uuid)
      const html = renderDocument(ReportPage({ report }))
      const etag = `"${createHash('sha256').update(html).digest('base64url').slice(0, 22)}"`
      reply.header('etag', etag).header('cache-control', 'public, no-cache').header('x-robots-tag', 'noindex')
      if (request.headers['if-none-match'] === etag) return reply.code(304).send()
      return reply.type('text/html; charset=utf-8').send(html)
    })
  }
}
