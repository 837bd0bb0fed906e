import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { METRIC_NAMES, OTHER_REASON } from './metric-names.ts'
import type { ClientAddressMetrics, HttpMetrics, JobMetrics, PoolCounts, ReadReplicaState, ServingMetrics, WebhookMetrics } from './metric-ports.ts'

/**
 * The Prometheus metrics of one instance (docs/metrics-and-logs.md).
 * Every instance has a registry of its own (tests run several in one
 * process), scraped at `GET /metrics` behind the operator token. The names
 * are a contract once shipped (metric-names.ts). Recording is cheap:
 * labelled children are bound once and reused, so the serving path only
 * increments. What each layer records is declared in metric-ports.ts.
 */

export interface MetricsOptions {
  /** The read replica's state at scrape time; unset: no DATABASE_READ_URL, and no read-replica series. */
  readReplica?: () => ReadReplicaState
  /** The store pool's counts at scrape time (null: no pool to report). */
  poolCounts?: () => PoolCounts | null
  /** Non-billable reasons bound in advance; any other reason is recorded as `other`. */
  viewReasons?: readonly string[]
  /** Why a click is not billable, bound in advance the same way. */
  clickReasons?: readonly string[]
}

/** Request durations from 1 ms to 10 s. */
const SECONDS_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** A ledger batch takes up to 2,000 each of offers, clicks and views. */
const ROWS_BUCKETS = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 6000]
/** A webhook attempt takes up to its 10 s timeout. */
const WEBHOOK_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Jobs run from milliseconds (nothing due) to many minutes (an invoicing catch-up). */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900]

type CounterChild = ReturnType<Counter['labels']>
type HistogramChild = ReturnType<Histogram['labels']>

/** A bound counter shown in the scrape from the start, at 0 (prom-client lists a series only once it was set). */
function atZero(child: CounterChild): CounterChild {
  child.inc(0)
  return child
}

/**
 * A `{billable, reason}` counter (views, clicks) with every series bound in advance: billable
 * (`reason` none), each known reason, and `other` for a reason not bound.
 */
class OutcomeCounter {
  readonly #billable: CounterChild
  readonly #byReason = new Map<string, CounterChild>()
  readonly #other: CounterChild

  constructor(counter: Counter<'billable' | 'reason'>, reasons: readonly string[]) {
    this.#billable = atZero(counter.labels('true', 'none'))
    for (const reason of reasons) this.#byReason.set(reason, atZero(counter.labels('false', reason)))
    this.#other = atZero(counter.labels('false', OTHER_REASON))
  }

  record(billable: boolean, reason: string | null): void {
    if (billable) this.#billable.inc()
    else ((reason !== null && this.#byReason.get(reason)) || this.#other).inc()
  }
}

export class Metrics implements ServingMetrics, JobMetrics, HttpMetrics, ClientAddressMetrics, WebhookMetrics {
  readonly registry = new Registry()
  readonly #http: Histogram<'method' | 'route' | 'status'>
  readonly #httpChildren = new Map<string, Map<string, Map<number, HistogramChild>>>()
  readonly #filled: CounterChild
  readonly #empty: CounterChild
  readonly #views: OutcomeCounter
  readonly #clicks: OutcomeCounter
  readonly #ledgerRows: Histogram
  readonly #ledgerCommit: Histogram
  readonly #jobRuns: Counter<'job'>
  readonly #jobFailures: Counter<'job'>
  readonly #jobDuration: Histogram<'job'>
  readonly #webhookAttempts: Counter<'outcome'>
  readonly #webhookDuration: Histogram
  readonly #reportFigures = new Map<string, CounterChild>()
  readonly #addressFallbacks: CounterChild
  readonly #readsByTarget = new Map<string, CounterChild>()
  #replicaFailures: CounterChild | null = null

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry, prefix: 'adapi_' })
    this.#http = new Histogram({
      name: METRIC_NAMES.httpDuration,
      help: 'Time from receiving a request to sending its answer, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: SECONDS_BUCKETS,
      registers,
    })
    const decisions = new Counter({
      name: METRIC_NAMES.decisions,
      help: 'Serving decisions answered: filled (an ad) or empty (204, nothing eligible).',
      labelNames: ['result'],
      registers,
    })
    this.#filled = atZero(decisions.labels('filled'))
    this.#empty = atZero(decisions.labels('empty'))
    const views = new Counter<'billable' | 'reason'>({
      name: METRIC_NAMES.views,
      help: 'View requests received: billable (reason none), else the non-billable reason of /v1/stats (short_dwell, repeat, too_fast, viewer_frequency, expired, block_full, invalid_traffic), or unknown_impression for an id that opens to no offer.',
      labelNames: ['billable', 'reason'],
      registers,
    })
    this.#views = new OutcomeCounter(views, options.viewReasons ?? [])
    const clicks = new Counter<'billable' | 'reason'>({
      name: METRIC_NAMES.clicks,
      help: 'Click requests redirected: billable (reason none; click campaigns only), else why not: impression_campaign, repeat, expired, viewer_frequency, block_full, invalid_traffic.',
      labelNames: ['billable', 'reason'],
      registers,
    })
    this.#clicks = new OutcomeCounter(clicks, options.clickReasons ?? [])
    this.#ledgerRows = new Histogram({
      name: METRIC_NAMES.ledgerRows,
      help: 'Ledger rows (offers, clicks, views) per group-commit batch.',
      buckets: ROWS_BUCKETS,
      registers,
    })
    this.#ledgerCommit = new Histogram({
      name: METRIC_NAMES.ledgerCommit,
      help: 'Time one group-commit batch took to judge, write and commit (retries included).',
      buckets: SECONDS_BUCKETS,
      registers,
    })
    this.#jobRuns = new Counter({ name: METRIC_NAMES.jobRuns, help: 'Job runs, by job (counted when a run ends, failed or not).', labelNames: ['job'], registers })
    this.#jobFailures = new Counter({ name: METRIC_NAMES.jobFailures, help: 'Job runs that failed, by job.', labelNames: ['job'], registers })
    this.#jobDuration = new Histogram({
      name: METRIC_NAMES.jobDuration,
      help: 'Time one job run took, by job.',
      labelNames: ['job'],
      buckets: JOB_BUCKETS,
      registers,
    })
    this.#webhookAttempts = new Counter({
      name: METRIC_NAMES.webhookAttempts,
      help: 'Webhook delivery attempts recorded, by what they left the message as: delivered, retrying (next attempt scheduled) or failed (past its 24 hours).',
      labelNames: ['outcome'],
      registers,
    })
    for (const outcome of ['delivered', 'retrying', 'failed']) atZero(this.#webhookAttempts.labels(outcome))
    this.#webhookDuration = new Histogram({
      name: METRIC_NAMES.webhookDuration,
      help: 'Time one webhook attempt took, from the address check to the endpoint\'s answer (or the timeout).',
      buckets: WEBHOOK_BUCKETS,
      registers,
    })
    const reportViews = new Counter({
      name: METRIC_NAMES.publicReportViews,
      help: 'Views of public reports answered with figures, by where the figures came from: store (read now: one stats read per chart part, surface and country) or kept (reused within their minute).',
      labelNames: ['figures'],
      registers,
    })
    for (const from of ['store', 'kept']) this.#reportFigures.set(from, atZero(reportViews.labels(from)))
    this.#addressFallbacks = atZero(
      new Counter({
        name: METRIC_NAMES.clientAddressFallbacks,
        help: 'Requests whose client address (the X-Forwarded-For entry TRUST_PROXY picks) was no IP address even once canonical (port, brackets, zone and leading zeros stripped): the socket address stood in.',
        registers,
      }),
    )
    if (options.readReplica) this.#declareReadReplica(options.readReplica, registers)
    const poolCounts = options.poolCounts
    if (poolCounts) {
      new Gauge({
        name: METRIC_NAMES.pool,
        help: 'Store pool connections: total open, idle, and requests waiting for one.',
        labelNames: ['state'],
        registers,
        collect() {
          const counts = poolCounts()
          if (counts === null) return
          this.set({ state: 'total' }, counts.total)
          this.set({ state: 'idle' }, counts.idle)
          this.set({ state: 'waiting' }, counts.waiting)
        },
      })
    }
  }

  #declareReadReplica(state: () => ReadReplicaState, registers: Registry[]): void {
    new Gauge({
      name: METRIC_NAMES.replicaUp,
      help: 'Lag-tolerant reads go to the read replica (1: it answers and is within READ_REPLICA_MAX_LAG_MS) or to the primary (0).',
      registers,
      collect() {
        this.set(state().up ? 1 : 0)
      },
    })
    new Gauge({
      name: METRIC_NAMES.replicaLag,
      help: 'How far behind the primary the read replica was at most at its last measurement (WAL positions, once a second); absent while it does not answer.',
      registers,
      collect() {
        const lagMs = state().lagMs
        this.reset()
        if (lagMs !== null) this.set(lagMs / 1000)
      },
    })
    const reads = new Counter({
      name: METRIC_NAMES.lagTolerantReads,
      help: 'Lag-tolerant reads (stats over rolled-up days, the leaderboard, the quote, export pages) by the server that answered: replica or primary.',
      labelNames: ['target'],
      registers,
    })
    for (const target of ['replica', 'primary']) this.#readsByTarget.set(target, atZero(reads.labels(target)))
    this.#replicaFailures = atZero(
      new Counter({ name: METRIC_NAMES.replicaReadFailures, help: 'Reads that failed on the read replica (down, stalled, a recovery conflict) and ran again on the primary.', registers }),
    )
  }

  /** A lag-tolerant read answered by `target` (counted only with DATABASE_READ_URL). */
  lagTolerantRead(target: 'replica' | 'primary'): void {
    this.#readsByTarget.get(target)?.inc()
  }

  replicaReadFailed(): void {
    this.#replicaFailures?.inc()
  }

  /** The registered job names get their counters at zero, so a scrape shows every job before its first run. */
  declareJobs(jobs: readonly string[]): void {
    for (const job of jobs) {
      atZero(this.#jobRuns.labels(job))
      atZero(this.#jobFailures.labels(job))
    }
  }

  request(method: string, route: string, status: number, seconds: number): void {
    // Looked up by route, method and status without building a key: no allocation once a series exists.
    let byMethod = this.#httpChildren.get(route)
    if (!byMethod) this.#httpChildren.set(route, (byMethod = new Map<string, Map<number, HistogramChild>>()))
    let byStatus = byMethod.get(method)
    if (!byStatus) byMethod.set(method, (byStatus = new Map<number, HistogramChild>()))
    let child = byStatus.get(status)
    if (!child) byStatus.set(status, (child = this.#http.labels(method, route, String(status))))
    child.observe(seconds)
  }

  decision(filled: boolean): void {
    ;(filled ? this.#filled : this.#empty).inc()
  }

  view(billable: boolean, reason: string | null): void {
    this.#views.record(billable, reason)
  }

  click(billable: boolean, reason: string | null): void {
    this.#clicks.record(billable, reason)
  }

  ledgerBatch(rows: number, seconds: number): void {
    this.#ledgerRows.observe(rows)
    this.#ledgerCommit.observe(seconds)
  }

  jobRun(job: string, seconds: number, ok: boolean): void {
    this.#jobRuns.labels(job).inc()
    if (!ok) this.#jobFailures.labels(job).inc()
    this.#jobDuration.labels(job).observe(seconds)
  }

  clientAddressFallback(): void {
    this.#addressFallbacks.inc()
  }

  publicReportView(figures: 'store' | 'kept'): void {
    this.#reportFigures.get(figures)?.inc()
  }

  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed', seconds: number): void {
    this.#webhookAttempts.labels(outcome).inc()
    this.#webhookDuration.observe(seconds)
  }

  /** The scrape: Prometheus text format 0.0.4. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() }
  }
}
