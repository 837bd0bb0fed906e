/**
 * What each layer records, as the interfaces it is handed (platform/metrics.ts#Metrics implements
 * them all): the serving engine, the scheduler, the webhook sender and the HTTP layer; and what
 * the registry reads at scrape time (the store pool, the read replica).
 */

/** Connections of the store's pool (pg.Pool counts). */
export interface PoolCounts {
  total: number
  idle: number
  waiting: number
}

/** What the serving engine records. */
export interface ServingMetrics {
  decision(filled: boolean): void
  /** A view request's outcome: billable, or the reason it is not (unknown reasons count as `other`). */
  view(billable: boolean, reason: string | null): void
  /** A click request's outcome: billable, or why not (unknown reasons count as `other`). */
  click(billable: boolean, reason: string | null): void
  /** One committed (or failed) group-commit batch: its rows and how long the commit took. */
  ledgerBatch(rows: number, seconds: number): void
}

/** What the scheduler records for each job run. */
export interface JobMetrics {
  jobRun(job: string, seconds: number, ok: boolean): void
}

/** What the webhook sender records for each attempt it recorded in the store. */
export interface WebhookMetrics {
  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed', seconds: number): void
}

/** What the HTTP layer records for each answered request. */
export interface HttpMetrics {
  request(method: string, route: string, status: number, seconds: number): void
}

/** What the HTTP layer records when it decides a request's client address (http/plugins/client-address.ts). */
export interface ClientAddressMetrics {
  /** The address TRUST_PROXY picked was no IP address even once canonical: the socket's stood in. */
  clientAddressFallback(): void
}

/** What the read routing knows (DATABASE_READ_URL; src/store/read-replica.ts). */
export interface ReadReplicaState {
  /** Lag-tolerant reads go to the replica now. */
  up: boolean
  /** How far behind the primary it is at most (ms) as of the last measurement; null: unknown (down). */
  lagMs: number | null
}
