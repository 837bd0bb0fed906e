import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ManualClock } from '../platform/clock.ts'
import type { Role } from '../platform/env.ts'
import type { Scheduler } from '../jobs/scheduler.ts'
import { readManualClock } from '../store/settings.ts'
import type { App } from '../http/types.ts'
import type { Base } from './base.ts'

/** A started instance of one role (what `npm start` runs). */
export interface Instance extends Base {
  role: Role
  scheduler: Scheduler
  /** The HTTP app (ROLE=web and all); a worker has none. */
  app: App | null
  /** Where it listens: the API, or a worker's /healthz and /readyz. */
  url: string
  /** Stops taking work, lets what is in flight finish, then closes the store; `progress` hears each step as it starts. */
  close(progress?: Progress): Promise<void>
}

/** Told what a closing instance is waiting for now (the shutdown names it if the hard cap ends the wait). */
export type Progress = (step: string) => void

export const STEPS = {
  http: 'closing the listener and finishing in-flight requests',
  ledger: 'flushing the serving ledger',
  counters: 'closing the counters connection (Redis)',
  jobs: 'stopping jobs at a safe point (the running job finishes)',
  signals: 'closing the job-signal connection',
  health: 'closing the health listener',
  store: 'closing the store',
} as const

/** The origin a listening server answers on. */
export function listening(server: Server): string {
  const { address, port } = server.address() as AddressInfo
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`
}

/** How often a split-role instance under CLOCK=manual looks for a clock moved elsewhere. */
const FOLLOW_MS = 1_000

/**
 * Under CLOCK=manual, the instances of a split deployment keep up with the
 * last instant an operator moved the clock to on any of them (the store keeps
 * it, `writeManualClock`): every second, a stored instant ahead of this
 * instance's clock is handed to `move`. Returns the function that stops it.
 */
export function followStoredClock(base: Base, move: (clock: ManualClock, to: Date) => Promise<void>): () => void {
  const { clock, store, log } = base
  if (!(clock instanceof ManualClock)) return () => {}
  let busy = false
  const timer = setInterval(() => {
    if (busy) return
    busy = true
    readManualClock(store.db)
      .then(async (stored) => {
        if (stored !== null && stored.getTime() > clock.nowMs()) await move(clock, stored)
      })
      .catch((err: unknown) => log.error({ err }, 'following the manual clock failed'))
      .finally(() => {
        busy = false
      })
  }, FOLLOW_MS)
  timer.unref()
  return () => clearInterval(timer)
}
