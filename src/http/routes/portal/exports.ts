import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { ExportRequestForm } from '../../schemas/pages/forms.ts'
import { ExportCreateSchema } from '../../schemas/exports.ts'
import { ErrorPage } from '../../pages/error-page.tsx'
import { exportProblem, ExportsPage, newExportValues, type ExportFormValues } from '../../pages/portal/exports.tsx'
import { portalNotice } from '../../pages/portal/notices.ts'
import { utc } from '../../pages/format.ts'
import { exportDownloadHeaders, presentExportJob } from '../v1/exports.ts'
import { ApiError } from '../../../domain/errors.ts'
import { PAGE_LIMIT_MAX } from '../../../domain/pagination.ts'
import { kickExports } from '../../../jobs/exports.ts'
import { openExportDownload, queueExport } from '../../../services/exports/requests.ts'
import { listCampaigns, listExports } from '../../../services/lists.ts'
import { asApiBody, formErrorHandler } from './api-body.ts'

/** Export jobs per page of the list. */
export const EXPORT_PAGE_SIZE = 20

const ListQuery = Type.Object({
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
  notice: Type.Optional(Type.String({ maxLength: 40 })),
})

/**
 * A window bound as the form gives it, as the API's RFC 3339 UTC timestamp: a
 * datetime-local value ("2026-11-02T09:00", seconds optional) or a bare date
 * (midnight) is read as UTC; anything else is passed on as typed, for the
 * API's schema to accept or refuse.
 */
export function utcTimestamp(text: string | undefined): string | undefined {
  const t = (text ?? '').trim()
  if (t === '') return undefined
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return `${t}T00:00:00Z`
  const local = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(?:\.\d{1,9})?)?$/.exec(t)
  if (local) return `${local[1]}T${local[2]}${local[3] ?? ':00'}Z`
  return t
}

function exportBody(values: ExportFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = { start: utcTimestamp(values.start), end: utcTimestamp(values.end) }
  const campaign = (values.campaign ?? '').trim()
  if (campaign !== '') body.campaign_ids = [campaign]
  // Blank: the service's default (config `export_schema_version`); anything else the API's schema accepts or refuses.
  const schema = (values.schema_version ?? '').trim()
  if (schema !== '') body.schema_version = schema
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined))
}

/**
 * `/portal/exports`: request a ledger export (the same use case as POST
 * /v1/exports), follow the account's jobs (the same list as GET /v1/exports),
 * and download a ready one (the same artifact as the API's download, for the
 * signed-in account only).
 */
export function portalExportRoutes(deps: RouteDeps) {
  async function renderPage(
    request: FastifyRequest,
    reply: FastifyReply,
    o: { cursor?: string; values?: ExportFormValues; problem?: ReturnType<typeof exportProblem>; notice?: string | null; status?: number },
  ) {
    const a = request.advertiser
    const [page, campaigns] = await Promise.all([
      listExports(deps, a.user_id, { limit: EXPORT_PAGE_SIZE, cursor: o.cursor }),
      listCampaigns(deps, a.user_id, { limit: PAGE_LIMIT_MAX }),
    ])
    const now = deps.clock.now()
    return reply.page(
      ExportsPage({
        csrf: reply.generateCsrf(),
        email: a.email,
        now,
        jobs: page.items.map((job) => presentExportJob(job, deps.settings.publicUrl)),
        nextCursor: page.nextCursor,
        paged: o.cursor !== undefined,
        campaigns: campaigns.items.map((g) => ({ campaign_id: g.campaign.campaign_id, name: g.campaign.name })),
        values: o.values ?? newExportValues(now),
        problem: o.problem,
        notice: o.notice,
      }),
      o.status,
    )
  }

  /** A refused request shown on the page at its field, with the typed values; anything else goes to the pages' error handler. */
  async function showProblem(error: unknown, request: FastifyRequest, reply: FastifyReply) {
    const values = request.body as ExportFormValues | undefined
    if (!(error instanceof ApiError) || values === undefined || request.advertiser === undefined) throw error
    return renderPage(request, reply, { values, problem: exportProblem(error.status, error.detail), status: error.status })
  }

  return async (app: App) => {
    app.get('/portal/exports', { schema: { querystring: ListQuery } }, async (request, reply) => {
      const { cursor, notice } = request.query
      return renderPage(request, reply, { cursor: cursor === '' ? undefined : cursor, notice: portalNotice(notice) })
    })

    app.post('/portal/exports', { schema: { body: ExportRequestForm }, errorHandler: formErrorHandler(showProblem) }, async (request, reply) => {
      const body = asApiBody(request, ExportCreateSchema, exportBody(request.body))
      await queueExport(deps, request.advertiser.user_id, body)
      kickExports(deps.scheduler, request.log)
      return reply.redirect('/portal/exports?notice=export_queued', 303)
    })

    app.get(
      '/portal/exports/:export_id/download',
      { schema: { params: Type.Object({ export_id: Type.String({ minLength: 1, maxLength: 200 }) }) } },
      async (request, reply) => {
        let opened: Awaited<ReturnType<typeof openExportDownload>>
        try {
          opened = await openExportDownload(deps, request.advertiser.user_id, request.params.export_id)
        } catch (error) {
          // Unknown and other accounts' ids stay the one 404 of the pages' error handler.
          if (!(error instanceof ApiError) || (error.status !== 410 && error.status !== 409)) throw error
          const detail: Record<string, unknown> = typeof error.detail === 'string' ? {} : error.detail
          const message =
            error.status === 410
              ? `This export expired ${typeof detail.expires_at === 'string' ? utc(detail.expires_at) : ''}; its file is gone. Request a new one on the Exports page.`
              : detail.reason === 'export_failed'
                ? 'This export failed, so it has no file. Request it again on the Exports page.'
                : 'This export is not ready yet. The Exports page shows its progress.'
          return reply.page(ErrorPage({ status: error.status, message }), error.status)
        }
        return reply.code(200).headers(exportDownloadHeaders(opened.job)).send(opened.body)
      },
    )
  }
}
