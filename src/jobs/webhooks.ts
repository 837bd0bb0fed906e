import type { FastifyBaseLogger } from 'fastify'
import { TIMEOUTS } from '../platform/timeouts.ts'
import type { ServiceContext } from '../services/context.ts'
import { deliverDueWebhooks } from '../services/webhooks/delivery.ts'

/**
 * The webhook sender (ROLE=all and worker; ROLE=web never sends): every second of real time it
 * claims the messages due on the service clock and sends them. Real-time polling, not a scheduled
 * job of the service clock: a message is due at the instant of its event, and under CLOCK=manual
 * that instant does not move until an operator moves it. Stopping aborts the attempts in flight
 * and gives their messages back.
 */
export class WebhookSender {
  readonly #ctx: ServiceContext
  readonly #log: FastifyBaseLogger
  readonly #abort = new AbortController()
  #timer: NodeJS.Timeout | null = null
  #running: Promise<void> | null = null

  constructor(ctx: ServiceContext, log: FastifyBaseLogger) {
    this.#ctx = ctx
    this.#log = log
  }

  start(pollMs: number = TIMEOUTS.webhooks.pollMs): void {
    if (this.#timer !== null || this.#abort.signal.aborted) return
    this.#timer = setInterval(() => void this.runOnce(), pollMs)
    this.#timer.unref()
  }

  /** One look for due messages, unless one is already under way (then that one's). */
  runOnce(): Promise<void> {
    if (this.#running || this.#abort.signal.aborted) return this.#running ?? Promise.resolve()
    this.#running = deliverDueWebhooks(this.#ctx, this.#log, this.#abort.signal)
      .then(() => {})
      .catch((err: unknown) => this.#log.error({ err }, 'webhook delivery run failed'))
      .finally(() => {
        this.#running = null
      })
    return this.#running
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    this.#abort.abort()
    await this.#running
  }
}
