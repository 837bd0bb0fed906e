import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { ComponentForm, ConfigForm } from '../../schemas/pages/ops-forms.ts'
import { ComponentPutSchema } from '../../schemas/admin/components.ts'
import { ComponentsPage } from '../../pages/ops/components.tsx'
import { ConfigPage, shown } from '../../pages/ops/config.tsx'
import type { FieldErrors } from '../../pages/ops/messages.ts'
import { asOperator } from '../../operator-context.ts'
import { COMPONENTS, componentState } from '../../../domain/components.ts'
import { CONFIG_FIELDS, CONFIG_RULES } from '../../../domain/config-rules.ts'
import { DEFAULT_CONFIG } from '../../../domain/order-config.ts'
import { readComponentStatus, readSetComponentStates } from '../../../services/status.ts'
import { readServiceConfig } from '../../../services/operator-settings.ts'
import { setComponentState, updateServiceConfig } from '../../../services/operator-actions.ts'
import { attempt, attemptBody, booleanOf, integerOf, numberOf } from './forms.ts'
import { frameOf } from './session.ts'
import { keysKeptInStore } from '../../../platform/env.ts'

const hide = { hide: true } as const
const Notice = Type.Object({ notice: Type.Optional(Type.String({ maxLength: 40 })) })

/** `/ops/components` and `/ops/config`: the service settings, through the operator API's use cases. */
export function opsSettingsRoutes(deps: RouteDeps) {
  return async (app: App) => {
    async function componentsPage(request: FastifyRequest, reply: FastifyReply, notice?: string, errors?: FieldErrors, status = 200) {
      const [shownStates, setStates] = await Promise.all([readComponentStatus(deps), readSetComponentStates(deps)])
      const components = COMPONENTS.map((component) => ({ component, shown: shownStates[component], set: componentState(setStates.get(component)) }))
      return reply.page(ComponentsPage({ frame: frameOf(deps, request, reply, notice), components, keysInStore: keysKeptInStore(deps.settings), errors }), status)
    }

    app.get('/ops/components', { schema: { ...hide, querystring: Notice } }, async (request, reply) => componentsPage(request, reply, request.query.notice))

    const componentParams = Type.Object({ component: Type.String({ minLength: 1, maxLength: 64 }) })
    app.post('/ops/components/:component', { schema: { ...hide, params: componentParams, body: ComponentForm } }, async (request, reply) => {
      const result = await attemptBody(ComponentPutSchema, { state: request.body.state }, (body) =>
        setComponentState(asOperator(deps, request), request.params.component, body.state),
      )
      if (result.ok) return reply.redirect('/ops/components?notice=component', 303)
      const errors = { form: `${request.params.component}: ${Object.values(result.errors).join(' ')}` }
      return componentsPage(request, reply, undefined, errors, result.status)
    })

    async function configPage(request: FastifyRequest, reply: FastifyReply, notice?: string, errors?: FieldErrors, values?: Record<string, string>, status = 200) {
      const current = await readServiceConfig(deps)
      return reply.page(ConfigPage({ frame: frameOf(deps, request, reply, notice), current, defaults: DEFAULT_CONFIG, errors, values }), status)
    }

    app.get('/ops/config', { schema: { ...hide, querystring: Notice } }, async (request, reply) => configPage(request, reply, request.query.notice))

    // Only the fields whose value changed go to the use case, so an untouched field keeps following its default.
    app.post('/ops/config', { schema: { ...hide, body: ConfigForm } }, async (request, reply) => {
      const form = request.body as Record<string, unknown>
      const current = await readServiceConfig(deps)
      const values: Record<string, string> = {}
      const patch: Record<string, unknown> = {}
      for (const field of CONFIG_FIELDS) {
        const raw = form[field]
        if (typeof raw !== 'string') continue
        values[field] = raw
        const rule = CONFIG_RULES[field]
        const value =
          rule.kind === 'boolean'
            ? booleanOf(raw)
            : rule.kind === 'choice'
              ? raw
              : rule.kind === 'number' && rule.nullable && raw.trim() === ''
                ? null
                : rule.kind === 'number' && !rule.integer
                  ? numberOf(raw)
                  : integerOf(raw)
        if (raw.trim() !== shown(current[field]) && JSON.stringify(value) !== JSON.stringify(current[field])) patch[field] = value
      }
      if (Object.keys(patch).length === 0) return reply.redirect('/ops/config?notice=config_unchanged', 303)
      const result = await attempt(() => updateServiceConfig(asOperator(deps, request), patch))
      if (result.ok) {
        deps.servingLimits.apply(result.value)
        return reply.redirect('/ops/config?notice=config', 303)
      }
      return configPage(request, reply, undefined, result.errors, values, result.status)
    })
  }
}
