import { Type, type TSchema } from 'typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import type { App, RouteDeps } from '../../types.ts'
import { IdParams } from '../../schemas/common.ts'
import { AdLineForm, EmptyForm, RenameForm } from '../../schemas/pages/forms.ts'
import { CampaignPage, CancelCampaignPage, type CampaignPageProps, type DeliveryView } from '../../pages/portal/campaign.tsx'
import { describeActionError } from '../../pages/portal/campaign-messages.ts'
import { describeStatsError } from '../../pages/portal/stats-messages.ts'
import { portalNotice } from '../../pages/portal/notices.ts'
import { presentCampaignDetail } from '../../presenters.ts'
import { previewUrl } from '../v1/previews.ts'
import { ApiError } from '../../../domain/errors.ts'
import { assertWriteAccess } from '../../../services/access.ts'
import { readCampaignDelivery, readDeliveryByTopic } from '../../../services/campaign-delivery.ts'
import {
  cancelCampaign,
  editCampaign,
  pauseCampaign,
  readCampaign,
  resumeCampaign,
  shareCampaignReport,
  stopSharingCampaignReport,
} from '../../../services/campaigns.ts'
import { previewCampaign } from '../../../services/previews.ts'
import { listCampaignTrafficCredits } from '../../../services/credits.ts'
import type { CampaignGraph } from '../../../services/read-models.ts'

const Params = IdParams('campaign_id')
const NoticeQuery = Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) })

type CampaignRequest = FastifyRequest<{ Params: { campaign_id: string } }>

/** Refusals a campaign action shows on the page (beside a field or above the forms); anything else is an error page. */
const SHOWN_ON_PAGE = new Set([400, 402, 403, 409])

/** The notices of the public report's panel. */
const SHARE_NOTICES = new Set(['report_shared', 'report_unshared'])

/**
 * `/portal/campaigns/{id}` and its actions (operations.md section 5). Every
 * action reads the campaign first (a foreign or unknown id is the 404 page),
 * checks write access where the API does, calls the same service as the API,
 * and redirects back with a notice; a refusal re-renders the page with the
 * service's reason beside its field or above the forms.
 */
export function portalCampaignPageRoutes(deps: RouteDeps) {
  /** The delivery chart through the stats service; a refusal of it (too costly, reporting off) is said in its place. */
  async function deliveryOf(userId: string, graph: CampaignGraph): Promise<DeliveryView> {
    try {
      const { campaign_id, created_at } = graph.campaign
      const [delivery, topics] = await Promise.all([
        readCampaignDelivery(deps, userId, campaign_id, created_at),
        // Delivery by topic is a part of its own: its refusal (beyond the ledger's retention, too costly) leaves the chart.
        readDeliveryByTopic(deps, userId, campaign_id, created_at).catch((err: unknown) => {
          if (err instanceof ApiError && err.status === 400) return null
          throw err
        }),
      ])
      return { ok: true, delivery, topics }
    } catch (err) {
      if (err instanceof ApiError && (err.status === 400 || err.status === 503)) return { ok: false, message: describeStatsError(err).message }
      throw err
    }
  }

  async function show(
    request: FastifyRequest,
    reply: FastifyReply,
    graph: CampaignGraph,
    extra: Pick<CampaignPageProps, 'notice' | 'noticeAt' | 'preview' | 'error' | 'values'> = {},
    status = 200,
  ) {
    const a = request.advertiser
    const [delivery, trafficCredits] = await Promise.all([deliveryOf(a.user_id, graph), listCampaignTrafficCredits(deps, a.user_id, graph.campaign.campaign_id)])
    const page = CampaignPage({
      csrf: reply.generateCsrf(),
      email: a.email,
      campaign: presentCampaignDetail(graph),
      delivery,
      trafficCredits,
      publicUrl: deps.settings.publicUrl,
      ...extra,
    })
    return reply.page(page, status)
  }

  /**
   * The route's own error handler: a refusal of the action (from the service,
   * the write-access check or the input rules at the edge) is shown on the
   * campaign page; anything else (a bad CSRF token, an unknown campaign) goes
   * on to the pages' error handler.
   */
  function refusal(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    if (!(error instanceof ApiError) || !SHOWN_ON_PAGE.has(error.status)) throw error
    // Whatever fails while drawing the page (the campaign is not the account's: 404) goes on to the pages' handler too.
    void showRefusal(error, request as CampaignRequest, reply).catch((err: unknown) => reply.send(err))
  }

  async function showRefusal(error: ApiError, r: CampaignRequest, reply: FastifyReply) {
    const request = r as FastifyRequest
    const graph = await readCampaign(deps, r.advertiser.user_id, r.params.campaign_id)
    const body = (request.body ?? {}) as { name?: unknown; ad_line?: unknown }
    const values = {
      ...(typeof body.name === 'string' ? { name: body.name } : {}),
      ...(typeof body.ad_line === 'string' ? { ad_line: body.ad_line } : {}),
    }
    return show(request, reply, graph, { error: describeActionError(error), values }, error.status)
  }

  return async (app: App) => {
    /** Back to the campaign with a notice, at the section the form was in (`#share`), else at the top. */
    const redirect = (reply: FastifyReply, id: string, notice: string, anchor?: string) =>
      reply.redirect(`/portal/campaigns/${encodeURIComponent(id)}?notice=${notice}${anchor ? `#${anchor}` : ''}`, 303)

    app.get('/portal/campaigns/:campaign_id', { schema: { hide: true, params: Params, querystring: NoticeQuery } }, async (request, reply) => {
      const graph = await readCampaign(deps, request.advertiser.user_id, request.params.campaign_id)
      // The public report's notices are said in its panel, where "Share report" and "Stop sharing" land.
      const noticeAt = SHARE_NOTICES.has(request.query.notice ?? '') ? 'share' : 'top'
      return show(request, reply, graph, { notice: portalNotice(request.query.notice), noticeAt })
    })

    app.get('/portal/campaigns/:campaign_id/cancel', { schema: { hide: true, params: Params } }, async (request, reply) => {
      const graph = await readCampaign(deps, request.advertiser.user_id, request.params.campaign_id)
      return reply.page(CancelCampaignPage({ csrf: reply.generateCsrf(), email: request.advertiser.email, campaign: presentCampaignDetail(graph) }))
    })

    /**
     * A campaign action behind a form: 404 first for a campaign that is not the
     * account's, then write access (403 before 402) when the API asks for it.
     */
    const action = <B extends TSchema, R>(
      path: string,
      body: B,
      options: { writes: boolean; notice: string | ((result: R) => string); anchor?: string },
      run: (userId: string, campaignId: string, form: Record<string, string>) => Promise<R>,
    ) =>
      app.post(`/portal/campaigns/:campaign_id/${path}`, { schema: { hide: true, params: Params, body }, errorHandler: refusal }, async (request, reply) => {
        const a = request.advertiser
        const id = request.params.campaign_id
        await readCampaign(deps, a.user_id, id)
        if (options.writes) await assertWriteAccess(deps, a)
        const result = await run(a.user_id, id, request.body as Record<string, string>)
        return redirect(reply, id, typeof options.notice === 'string' ? options.notice : options.notice(result), options.anchor)
      })

    action('pause', EmptyForm, { writes: true, notice: 'campaign_paused' }, (u, id) => pauseCampaign(deps, u, id))
    action('resume', EmptyForm, { writes: true, notice: 'campaign_resumed' }, (u, id) => resumeCampaign(deps, u, id))
    action('cancel', EmptyForm, { writes: true, notice: 'campaign_cancelled' }, (u, id) => cancelCampaign(deps, u, id))
    action('rename', RenameForm, { writes: true, notice: 'campaign_renamed' }, (u, id, form) => editCampaign(deps, u, id, { name: form.name ?? '' }))
    // A rewritten line held for review says so (the page's banner then reads "In review").
    const rewritten = (graph: CampaignGraph) => (graph.creative.moderation_status === 'pending' ? 'ad_line_in_review' : 'ad_line_rewritten')
    action('ad-line', AdLineForm, { writes: true, notice: rewritten }, (u, id, form) => editCampaign(deps, u, id, { ad_line: form.ad_line ?? '' }))
    // Publishing a report is a campaign write; taking it down is always allowed.
    action('share', EmptyForm, { writes: true, notice: 'report_shared', anchor: 'share' }, (u, id) => shareCampaignReport(deps, u, id))
    action('unshare', EmptyForm, { writes: false, notice: 'report_unshared', anchor: 'share' }, (u, id) => stopSharingCampaignReport(deps, u, id))

    // A preview, like POST /v1/campaigns/{id}/preview (no write access needed): the page shows it at once, under its button
    // (the form's address ends in #preview), with its address; the token is shown only now, so this answer is the page itself.
    app.post('/portal/campaigns/:campaign_id/preview', { schema: { hide: true, params: Params, body: EmptyForm }, errorHandler: refusal }, async (request, reply) => {
      const userId = request.advertiser.user_id
      const graph = await readCampaign(deps, userId, request.params.campaign_id)
      const { token, row } = await previewCampaign(deps, userId, graph.campaign.campaign_id)
      return show(request, reply, graph, {
        preview: {
          url: previewUrl(deps.settings.publicUrl, token),
          expiresAt: row.expires_at.toISOString(),
          view: { adLine: row.ad_line, brand: row.brand, iconUrl: row.icon_url },
          destinationUrl: row.destination_url,
          surface: row.target_surface,
        },
      })
    })
  }
}
