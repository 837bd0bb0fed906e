import {
  componentStatus,
  refuseIfDisabled,
  reportingState,
  type Component,
  type ComponentState,
  type SwitchableComponent,
} from '../domain/components.ts'
import { storeReachable } from '../store/health.ts'
import { readRolledThrough } from '../store/rollups.ts'
import { readComponentStates } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'

type StatusContext = Pick<ServiceContext, 'db' | 'clock'>

/** GET /status: every component's state, reporting degraded while the rollups are behind. */
export async function readComponentStatus(ctx: StatusContext): Promise<Record<Component, ComponentState>> {
  const [stored, rolledThrough] = await Promise.all([readComponentStates(ctx.db), readRolledThrough(ctx.db)])
  return componentStatus(stored, rolledThrough, ctx.clock.nowMs())
}

/** The reporting state now (domain/components.ts#reportingState): account access, creative metrics. */
export async function readReportingState(ctx: StatusContext): Promise<ComponentState> {
  const [stored, rolledThrough] = await Promise.all([readComponentStates(ctx.db), readRolledThrough(ctx.db)])
  return reportingState(stored.get('reporting'), rolledThrough, ctx.clock.nowMs())
}

/** Refuses (503) a use case of a component the operator disabled. */
export async function requireComponent(ctx: Pick<ServiceContext, 'db'>, component: SwitchableComponent): Promise<void> {
  refuseIfDisabled(await readComponentStates(ctx.db), component)
}

/** GET /readyz: the store answers. */
export async function storeReady(ctx: Pick<ServiceContext, 'db'>): Promise<boolean> {
  return storeReachable(ctx.db)
}

/** The states operators set, by component (a component never set has none). */
export async function readSetComponentStates(ctx: Pick<ServiceContext, 'db'>): Promise<ReadonlyMap<string, string>> {
  return readComponentStates(ctx.db)
}
