import type { App, RouteDeps } from '../../types.ts'
import { errors, IdParams, pagedListSchema } from '../../schemas/common.ts'
import {
  CampaignCreatedSchema,
  CampaignCreateSchema,
  CampaignEditSchema,
  CampaignListSchema,
} from '../../schemas/campaigns.ts'
import { CampaignDetailSchema } from '../../schemas/creatives.ts'
import { presentCampaign, presentCampaignDetail as detail } from '../../presenters.ts'
import { requireWriteAccess } from '../../plugins/auth.ts'
import { createBudget } from '../../plugins/create-budget.ts'
import type { CampaignGraph } from '../../../services/read-models.ts'
import { listCampaigns } from '../../../services/lists.ts'
import { createCampaign } from '../../../services/campaign-creation.ts'
import { cancelCampaign, editCampaign, pauseCampaign, readCampaign, resumeCampaign } from '../../../services/campaigns.ts'

const Params = IdParams('campaign_id')


export function campaignRoutes(deps: RouteDeps) {
  const writeAccess = requireWriteAccess(deps)
  return async (app: App) => {
    app.post(
      '/campaigns',
      {
        preValidation: writeAccess,
        schema: {
          summary: 'Create a campaign',
          description:
            'Requires write access: 403 when write approval or API terms are missing (403 wins), 402 when billing blocks writes, ' +
            'with `detail` `{field: "billing", reason, collection_status}` and one reason per cause: `billing_not_enrolled`, ' +
            '`billing_setup_pending`, `payment_failed`, `payment_action_required`, `billing_paused`, `billing_disabled`, ' +
            '`invoice_overdue` (with `invoice_ids`); `access.billing_reason` of GET /account names the same. Idempotent per (account, idempotency_key): the same payload replays the original 201 ' +
            'with `replayed: true` and header `Idempotent-Replayed: true`; another payload is 409 `idempotency_key_reused`. ' +
            '402 `outstanding_balance_cap` (detail `cap_usd`, `outstanding_cents`) once the not-yet-invoiced balance ' +
            '(Account.outstanding_cents) has reached config.outstanding_balance_cap_usd; the order\'s own face value is not counted. ' +
            'A Net 30 account also gets 402 `credit_limit` (detail `credit_limit_cents`, `owed_cents`) once balance.owed_cents has ' +
            'reached its billing_profile.credit_limit_cents. 429 when config.create_rate_limit_per_min campaigns were already ' +
            'created this minute; checked last, so replays and refused creates never spend the budget nor get 429. ' +
            '503: not accepting orders (do not loop), ' +
            '`order provisioning incomplete` (retry the same body and key), or transient store unavailability.',
          tags: ['campaigns'],
          body: CampaignCreateSchema,
          response: { 201: CampaignCreatedSchema, ...errors(400, 401, 402, 403, 409, 429, 503) },
        },
      },
      async (request, reply) => {
        const budget = createBudget(deps, request, reply)
        const created = await createCampaign(deps, request.account.user_id, request.body, budget)
        if (created.replayed) reply.header('idempotent-replayed', 'true')
        return reply.code(201).send(created)
      },
    )

    app.get(
      '/campaigns',
      {
        schema: pagedListSchema({
          summary: 'List campaigns',
          items: "The account's campaigns with their blocks, newest first (creation order)",
          notes:
            'Pages are keyed on creation order, so campaigns created while paging never repeat or skip one (they appear on a ' +
            'fresh first page).',
          tags: ['campaigns'],
          list: CampaignListSchema,
        }),
      },
      async (request) => {
        const page = await listCampaigns(deps, request.account.user_id, request.query)
        return { campaigns: page.items.map(presentCampaign), next_cursor: page.nextCursor }
      },
    )

    app.get(
      '/campaigns/:campaign_id',
      {
        schema: {
          summary: 'One campaign, with blocks and its creatives',
          tags: ['campaigns'],
          params: Params,
          response: { 200: CampaignDetailSchema, ...errors(401, 404, 429) },
        },
      },
      async (request) => detail(await readCampaign(deps, request.account.user_id, request.params.campaign_id)),
    )

    app.patch(
      '/campaigns/:campaign_id',
      {
        preValidation: writeAccess,
        config: { unknownFieldReason: 'not_editable' },
        schema: {
          summary: 'Rename and/or rewrite the ad line',
          description:
            'Only `name` and `ad_line` are editable; any other field is 400 `not_editable` (URL, bid, size and surface need ' +
            'cancel and re-create). A new line is re-screened; a borderline one returns the creative to `pending`. ' +
            'Rewriting the line of a cancelled campaign is 409. Answers the updated campaign.',
          tags: ['campaigns'],
          params: Params,
          body: CampaignEditSchema,
          response: { 200: CampaignDetailSchema, ...errors(400, 401, 402, 403, 404, 409, 429) },
        },
      },
      async (request) => detail(await editCampaign(deps, request.account.user_id, request.params.campaign_id, request.body)),
    )

    const stateChange = (
      path: string,
      summary: string,
      description: string,
      run: (userId: string, id: string) => Promise<CampaignGraph>,
      method: 'post' | 'delete' = 'post',
    ) =>
      app[method](
        path,
        {
          preValidation: writeAccess,
          schema: {
            summary,
            description: `${description} Answers the campaign.`,
            tags: ['campaigns'],
            params: Params,
            response: { 200: CampaignDetailSchema, ...errors(401, 402, 403, 404, 409, 429) },
          },
        },
        async (request) => detail(await run(request.account.user_id, request.params.campaign_id)),
      )

    stateChange(
      '/campaigns/:campaign_id/pause',
      'Pause',
      'Stops serving and keeps auction position. Pausing a paused campaign is a no-op 200; cancelled or completed is 409.',
      (u, id) => pauseCampaign(deps, u, id),
    )
    stateChange(
      '/campaigns/:campaign_id/resume',
      'Resume',
      'Restores position and delivery state; starts delivery of a staged (start_paused) campaign. Resuming an active campaign is a no-op 200; cancelled or completed is 409.',
      (u, id) => resumeCampaign(deps, u, id),
    )
    stateChange(
      '/campaigns/:campaign_id',
      'Cancel',
      'Stops delivery permanently; delivered impressions are billed, undelivered never. Cancelling again is 409.',
      (u, id) => cancelCampaign(deps, u, id),
      'delete',
    )
  }
}
