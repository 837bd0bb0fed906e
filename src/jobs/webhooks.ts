import type { FastifyBaseLogger } from 'fastify'
import type { WebhookMetrics } from '../platform/metric-ports.ts'
import { TIMEOUTS } from '../platform/timeouts.ts'
import type { ServiceContext } from '../services/context.ts'
import { claimDueWebhooks, deliverClaimed } from '../services/webhooks/delivery.ts'

/**
 * The webhook sender (ROLE=all and worker; ROLE=web never sends): every second of real time it
 * claims the messages due on the service clock and sends them, at most `TIMEOUTS.webhooks.batch`
 * at once. A slow receiver holds one slot for up to an attempt's 10 s, not the whole sender: each
 * look claims only as many messages as there are free slots. Real-time polling, not a scheduled
 * job of the service clock: a message is due at the instant of its event, and under CLOCK=manual
 * that instant does not move until an operator moves it. Stopping aborts the attempts in flight
 * and gives their messages back. Each recorded attempt is counted in `metrics` by outcome.
 */
export class WebhookSender {
  readonly #ctx: ServiceContext
  readonly #log: FastifyBaseLogger
  readonly #metrics: WebhookMetrics | undefined
  readonly #abort = new AbortController()
  readonly #inFlight = new Set<Promise<void>>()
  #timer: NodeJS.Timeout | null = null
  #claiming: Promise<void> | null = null

  constructor(ctx: ServiceContext, log: FastifyBaseLogger, metrics?: WebhookMetrics) {
    this.#ctx = ctx
    this.#log = log
    this.#metrics = metrics
  }

  start(pollMs: number = TIMEOUTS.webhooks.pollMs): void {
    if (this.#timer !== null || this.#abort.signal.aborted) return
    this.#timer = setInterval(() => void this.runOnce(), pollMs)
    this.#timer.unref()
  }

  /** One look for due messages (unless one is under way): claims as many as there are free slots and starts sending them. */
  runOnce(): Promise<void> {
    if (this.#claiming || this.#abort.signal.aborted) return this.#claiming ?? Promise.resolve()
    this.#claiming = claimDueWebhooks(this.#ctx, TIMEOUTS.webhooks.batch - this.#inFlight.size)
      .then((claimed) => {
        for (const message of claimed) {
          const sending: Promise<void> = deliverClaimed(this.#ctx, this.#log, message, this.#abort.signal)
            .then((attempt) => {
              if (attempt !== null) this.#metrics?.webhookAttempt(attempt.outcome, attempt.seconds)
            })
            .catch((err: unknown) => this.#log.error({ err, message_id: message.message_id }, 'webhook delivery failed to record'))
            .finally(() => this.#inFlight.delete(sending))
          this.#inFlight.add(sending)
        }
      })
      .catch((err: unknown) => this.#log.error({ err }, 'claiming webhook messages failed'))
      .finally(() => {
        this.#claiming = null
      })
    return this.#claiming
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
    this.#abort.abort()
    await this.#claiming
    await Promise.all([...this.#inFlight])
  }
}
