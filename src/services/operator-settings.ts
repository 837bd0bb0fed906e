import { configPatchProblems } from '../domain/config-rules.ts'
import { COMPONENTS, SETTABLE_STATES } from '../domain/components.ts'
import { ApiError, invalid } from '../domain/errors.ts'
import type { ServiceConfig } from '../domain/order-config.ts'
import { readConfig, writeComponentState, writeConfigOverrides } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'

/** Operator use cases on the service settings (GET/PATCH /admin/v1/config, PUT /admin/v1/components/{component}). */

/** The whole config: code defaults under the operator's overrides. */
export const readServiceConfig = (ctx: ServiceContext): Promise<ServiceConfig> => readConfig(ctx.db)

/**
 * Merges `patch` into the stored overrides; every request after this one
 * reads the new values. A value the rules refuse (domain/config-rules.ts) is
 * 400 naming its field, whoever sends it: the API or the console's form.
 */
export async function updateServiceConfig(ctx: ServiceContext, patch: Readonly<Record<string, unknown>>): Promise<ServiceConfig> {
  const [problem] = configPatchProblems(patch)
  if (problem) throw new ApiError(400, problem)
  return writeConfigOverrides(ctx.db, patch)
}

export type SettableState = (typeof SETTABLE_STATES)[number]

/**
 * Sets one component's state, shown in GET /v1/status and acted on by the
 * component's own checks. An unknown component or state is 400 (the API's
 * schema refuses them first; a console form could still send one).
 */
export async function setComponentState<C extends string>(
  ctx: ServiceContext,
  component: C,
  state: string,
): Promise<{ component: C; state: SettableState }> {
  if (!COMPONENTS.some((c) => c === component)) throw invalid('component', 'invalid_value', { allowed: COMPONENTS })
  const settable = SETTABLE_STATES.find((s) => s === state)
  if (!settable) throw invalid('state', 'invalid_value', { allowed: SETTABLE_STATES })
  await writeComponentState(ctx.db, component, settable, ctx.clock.now())
  return { component, state: settable }
}
