import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { EmptyForm } from '../../schemas/pages/forms.ts'
import { AdvanceForm, SetClockForm } from '../../schemas/pages/ops-forms.ts'
import { ClockSchema } from '../../schemas/admin/clock.ts'
import { JobsPage } from '../../pages/ops/jobs.tsx'
import { ClockPage } from '../../pages/ops/clock.tsx'
import type { FieldErrors } from '../../pages/ops/messages.ts'
import { ErrorPage } from '../../pages/error-page.tsx'
import { OPS_HOME } from '../../pages/ops/frame.tsx'
import { asOperator } from '../../operator-context.ts'
import { presentJobSchedule } from '../../presenters.ts'
import { listJobSchedules } from '../../../services/operator-clock.ts'
import { moveManualClock, runJobNow } from '../../../services/operator-actions.ts'
import { attemptBody, numberOf, type Attempt } from './forms.ts'
import { frameOf } from './session.ts'

const hide = { hide: true } as const
const Notice = Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) })

/** `/ops/jobs` and `/ops/clock` (the latter only under CLOCK=manual): service time and the jobs it drives. */
export function opsTimeRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/ops/jobs', { schema: { ...hide, querystring: Notice } }, async (request, reply) => {
      const jobs = (await listJobSchedules(deps)).map(presentJobSchedule)
      return reply.page(JobsPage({ frame: frameOf(deps, request, reply, request.query.notice), jobs }))
    })

    const jobParams = Type.Object({ job: Type.String({ minLength: 1, maxLength: 40 }) })
    app.post('/ops/jobs/:job/run', { config: { deadline: false }, schema: { ...hide, params: jobParams, body: EmptyForm } }, async (request, reply) => {
      await runJobNow(asOperator(deps, request), request.params.job)
      return reply.redirect('/ops/jobs?notice=job_ran', 303)
    })

    // Under the system clock there is no clock to move: the page does not exist (and the navigation does not show it).
    if (deps.clock.kind !== 'manual') {
      app.get('/ops/clock', { schema: hide }, async (_request, reply) =>
        reply.page(ErrorPage({ status: 404, message: 'The service runs on the system clock (CLOCK=system): there is no clock to move.', home: OPS_HOME }), 404),
      )
      return
    }

    async function clockPage(request: FastifyRequest, reply: FastifyReply, notice?: string, errors?: FieldErrors, values?: Record<string, string>, status = 200) {
      return reply.page(ClockPage({ frame: frameOf(deps, request, reply, notice), now: deps.clock.now(), errors, values }), status)
    }

    app.get('/ops/clock', { schema: { ...hide, querystring: Notice } }, async (request, reply) => clockPage(request, reply, request.query.notice))

    const [advanceBranch, setBranch] = ClockSchema.anyOf
    /** Back to the clock page: with a notice once moved, else with the errors next to the form's field. */
    async function moved(request: FastifyRequest, reply: FastifyReply, result: Attempt<Date>, field: 'advance_seconds' | 'now', values: Record<string, string>) {
      if (result.ok) return reply.redirect('/ops/clock?notice=clock', 303)
      // The use case names `now` for any instant it refuses; an advance shows it at its own field.
      const errors = field === 'advance_seconds' && result.errors.now ? { advance_seconds: result.errors.now } : result.errors
      return clockPage(request, reply, undefined, errors, values, result.status)
    }

    app.post('/ops/clock/advance', { config: { deadline: false }, schema: { ...hide, body: AdvanceForm } }, async (request, reply) => {
      const raw = request.body.advance_seconds
      const result = await attemptBody(advanceBranch, { advance_seconds: numberOf(raw) }, (body) => moveManualClock(asOperator(deps, request), body))
      return moved(request, reply, result, 'advance_seconds', { advance_seconds: raw })
    })

    app.post('/ops/clock/set', { config: { deadline: false }, schema: { ...hide, body: SetClockForm } }, async (request, reply) => {
      const raw = request.body.now
      const result = await attemptBody(setBranch, { now: raw.trim() }, (body) => moveManualClock(asOperator(deps, request), body))
      return moved(request, reply, result, 'now', { now: raw })
    })
  }
}
