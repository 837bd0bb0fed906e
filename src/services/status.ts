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
import type { CounterStore } from '../platform/counters.ts'
import { ResilientCounterStore } from '../platform/resilient-counters.ts'
import { TIMEOUTS } from '../platform/timeouts.ts'

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

/** What /readyz reports: the store, and Redis under the Redis policy ('off': no REDIS_URL). */
export interface ReadinessChecks {
  store: 'up' | 'down'
  redis: 'up' | 'degraded' | 'off'
}

export interface Readiness {
  ready: boolean
  checks: ReadinessChecks
}

/** What readiness looks at: the store, and the counters when they are the Redis-backed ones. */
export interface ReadinessContext {
  db: ServiceContext['db']
  counters?: CounterStore
}

/** Resolves `fallback` if `work` has not settled within `ms` (a real-time bound, not service time). */
function within<T>(ms: number, work: Promise<T>, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms)
  })
  return Promise.race([work.catch(() => fallback), late]).finally(() => clearTimeout(timer))
}

/**
 * GET /readyz (the web's and the worker's): ready exactly when the store
 * answers a trivial query within TIMEOUTS.readinessMs. Redis down does not
 * make an instance unready: it serves with local limits (the Redis policy),
 * and says so as `redis: 'degraded'`. One function, so other reasons not to
 * be ready (e.g. draining on shutdown) are added here.
 */
export async function readiness(ctx: ReadinessContext): Promise<Readiness> {
  const counters = ctx.counters
  const [storeUp, redis] = await Promise.all([
    within(TIMEOUTS.readinessMs, storeReachable(ctx.db), false),
    counters instanceof ResilientCounterStore
      ? within(TIMEOUTS.readinessMs, counters.probe(), 'down' as const).then((state) => (state === 'up' ? ('up' as const) : ('degraded' as const)))
      : Promise.resolve('off' as const),
  ])
  return { ready: storeUp, checks: { store: storeUp ? 'up' : 'down', redis } }
}

/** The 503 detail of an instance that is not ready. */
export function notReadyDetail(checks: ReadinessChecks): string {
  return checks.store === 'down' ? `store unreachable: no answer within ${TIMEOUTS.readinessMs} ms` : 'not ready'
}

/** The states operators set, by component (a component never set has none). */
export async function readSetComponentStates(ctx: Pick<ServiceContext, 'db'>): Promise<ReadonlyMap<string, string>> {
  return readComponentStates(ctx.db)
}
