import type { AttestationParts } from '../services/attestation.ts'
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { ServiceContext } from '../services/context.ts'
import type { CounterStore } from '../platform/counters.ts'
import type { PaymentProcessor } from '../platform/payment-processor.ts'
import type { Mailer } from '../platform/mailer.ts'
import type { Metrics } from '../platform/metrics.ts'
import type { Scheduler } from '../jobs/scheduler.ts'
import type { ServingEngine } from '../serving/engine.ts'
import type { ServingLimitsCache } from '../services/serving-limits.ts'
import type { Lifecycle } from '../platform/lifecycle.ts'

export type App = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>

/** Everything routes need, handed to each route plugin. */
export interface RouteDeps extends ServiceContext {
  counters: CounterStore
  processor: PaymentProcessor
  scheduler: Scheduler
  serving: ServingEngine
  /** The serving abuse limits of the operator config, held for the serving routes (services/serving-limits.ts). */
  servingLimits: ServingLimitsCache
  /** SMTP when SMTP_URL is set; null: email is kept in the outbox only. */
  mailer: Mailer | null
  /** Draining after SIGTERM: /readyz answers 503 and every answer closes its connection. */
  lifecycle: Lifecycle
  /** This instance's metrics: the HTTP layer records request durations and serves the scrape. */
  metrics: Metrics
  /** The Privacy Pass issuer's keys and the attester (docs/attestation.md). */
  attestation: AttestationParts
}
