import type { ServiceConfig } from '../domain/order-config.ts'
import { readConfig, writeComponentState, writeConfigOverrides } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'

/** Operator use cases on the service settings (GET/PATCH /admin/v1/config, PUT /admin/v1/components/{component}). */

/** The whole config: code defaults under the operator's overrides. */
export const readServiceConfig = (ctx: ServiceContext): Promise<ServiceConfig> => readConfig(ctx.db)

/** Merges `patch` into the stored overrides; every request after this one reads the new values. */
export const updateServiceConfig = (ctx: ServiceContext, patch: Partial<ServiceConfig>): Promise<ServiceConfig> =>
  writeConfigOverrides(ctx.db, patch)

export type SettableState = 'operational' | 'degraded' | 'disabled'

/** Sets one component's state, shown in GET /v1/status and acted on by the component's own checks. */
export async function setComponentState<C extends string>(
  ctx: ServiceContext,
  component: C,
  state: SettableState,
): Promise<{ component: C; state: SettableState }> {
  await writeComponentState(ctx.db, component, state, ctx.clock.now())
  return { component, state }
}
