import type { App, RouteDeps } from '../../types.ts'
import { adminAuth } from '../../plugins/admin-auth.ts'
import {
  AccountCreateSchema,
  BillingEnrollSchema,
  ClockSchema,
  ComponentParams,
  ComponentPutSchema,
  ConfigPatchSchema,
  ModerationSchema,
  UserParams,
} from '../../schemas/admin.ts'
import { presentBillingProfile, presentInvoice } from '../../presenters.ts'
import { conflict, invalid, notFound } from '../../../domain/errors.ts'
import { ManualClock } from '../../../platform/clock.ts'
import type { ServiceConfig } from '../../../domain/order-config.ts'
import {
  createAccount,
  enrollBilling,
  rotateKey,
  setTermsAccepted,
  setWriteApproval,
  setWritesEnabled,
  requireAccount,
  type BillingEnrollment,
} from '../../../services/accounts.ts'
import { markInvoicePaid, postCredit } from '../../../services/billing/adjustments.ts'
import { listInvoices } from '../../../store/billing.ts'
import { moderateCampaign } from '../../../services/moderation.ts'
import { readConfig, writeComponentState, writeConfigOverrides, writeManualClock } from '../../../store/settings.ts'
import { Type } from 'typebox'
import { billingStateRoutes } from './billing.ts'

const MAX_CLOCK_MOVE_MS = 100_000_000_000

/** The operator API (operations.md section 3). Mounted only when ADMIN_TOKEN is set. */
export function adminRoutes(deps: RouteDeps, token: string) {
  return async (app: App) => {
    app.addHook('onRequest', adminAuth(token))

    app.post('/accounts', { schema: { body: AccountCreateSchema } }, async (request, reply) =>
      reply.code(201).send(await createAccount(deps, request.body)),
    )

    app.post(
      '/accounts/:user_id/write-approval',
      { schema: { params: UserParams, body: Type.Object({ approved: Type.Boolean() }, { additionalProperties: false }) } },
      async (request) => {
        const a = await setWriteApproval(deps, request.params.user_id, request.body.approved)
        return { user_id: a.user_id, write_approved: a.write_approved }
      },
    )

    app.post(
      '/accounts/:user_id/terms',
      { schema: { params: UserParams, body: Type.Object({ accepted: Type.Boolean() }, { additionalProperties: false }) } },
      async (request) => {
        const a = await setTermsAccepted(deps, request.params.user_id, request.body.accepted)
        return { user_id: a.user_id, terms_accepted: a.terms_accepted }
      },
    )

    // Addition to operations.md: the operator switch behind access.campaign_writes = `disabled`.
    app.post(
      '/accounts/:user_id/writes',
      { schema: { params: UserParams, body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }) } },
      async (request) => {
        const a = await setWritesEnabled(deps, request.params.user_id, request.body.enabled)
        return { user_id: a.user_id, writes_enabled: !a.writes_disabled }
      },
    )

    app.post('/accounts/:user_id/billing', { schema: { params: UserParams, body: BillingEnrollSchema } }, async (request) => {
      const a = await enrollBilling(deps, deps.processor, request.params.user_id, request.body as BillingEnrollment)
      return presentBillingProfile(a, deps.clock.now())
    })

    app.post('/accounts/:user_id/rotate-key', { schema: { params: UserParams } }, async (request) =>
      rotateKey(deps, request.params.user_id),
    )

    app.post(
      '/accounts/:user_id/credits',
      {
        schema: {
          params: UserParams,
          body: Type.Object(
            { amount_cents: Type.Integer({ minimum: 1, maximum: 100_000_000 }), memo: Type.String({ minLength: 1, maxLength: 500 }) },
            { additionalProperties: false },
          ),
        },
      },
      async (request, reply) => {
        const credit = await postCredit(deps, request.params.user_id, request.body.amount_cents, request.body.memo)
        return reply.code(201).send({ ...credit, posted_at: credit.posted_at.toISOString() })
      },
    )

    app.get('/accounts/:user_id/invoices', { schema: { params: UserParams } }, async (request) => {
      await requireAccount(deps, request.params.user_id)
      return { invoices: (await listInvoices(deps.db, request.params.user_id)).map(presentInvoice) }
    })

    app.post('/invoices/:invoice_id/mark-paid', { schema: { params: Type.Object({ invoice_id: Type.String() }) } }, async (request) =>
      presentInvoice(await markInvoicePaid(deps, request.params.invoice_id)),
    )

    await app.register(billingStateRoutes(deps))

    app.get('/config', async () => readConfig(deps.db))

    app.patch('/config', { schema: { body: ConfigPatchSchema } }, async (request) =>
      writeConfigOverrides(deps.db, request.body as Partial<ServiceConfig>),
    )

    app.put('/components/:component', { schema: { params: ComponentParams, body: ComponentPutSchema } }, async (request) => {
      await writeComponentState(deps.db, request.params.component, request.body.state, deps.clock.now())
      return { component: request.params.component, state: request.body.state }
    })

    app.post(
      '/campaigns/:campaign_id/moderation',
      { schema: { params: Type.Object({ campaign_id: Type.String() }), body: ModerationSchema } },
      async (request) => moderateCampaign(deps, request.params.campaign_id, request.body.status as 'approved' | 'rejected'),
    )

    app.post('/clock', { schema: { body: ClockSchema } }, async (request) => {
      const clock = deps.clock
      if (!(clock instanceof ManualClock)) throw conflict('the service runs on the system clock; set CLOCK=manual to move time')
      const body = request.body as { advance_seconds?: number; now?: string }
      const target = body.now !== undefined ? new Date(body.now) : new Date(clock.nowMs() + Math.round((body.advance_seconds ?? 0) * 1000))
      if (Number.isNaN(target.getTime())) throw invalid('now', 'invalid_format')
      if (target.getTime() < clock.nowMs()) throw invalid('now', 'clock_moves_forward_only', { current: clock.now().toISOString() })
      if (target.getTime() - clock.nowMs() > MAX_CLOCK_MOVE_MS) throw invalid('now', 'above_maximum', { max_seconds: MAX_CLOCK_MOVE_MS / 1000 })
      await deps.scheduler.advanceManualClock(target, (to) => clock.set(to))
      await writeManualClock(deps.db, clock.now())
      return { now: clock.now().toISOString() }
    })

    app.post('/jobs/:job/run', { schema: { params: Type.Object({ job: Type.String() }) } }, async (request) => {
      const { job } = request.params
      if (!deps.scheduler.has(job)) throw notFound(`job ${job} (known: ${deps.scheduler.names.join(', ')})`)
      const result = await deps.scheduler.runNow(job)
      return { job, ran_at: deps.clock.now().toISOString(), result }
    })

  }
}
