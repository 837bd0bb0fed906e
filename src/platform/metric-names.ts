/**
 * The names of the instance's series (docs/metrics-and-logs.md): a contract once shipped.
 * And the label values that stand for what is not named: a request that matched no route, a
 * reason not bound in advance.
 */

export const METRIC_NAMES = {
  httpDuration: 'adapi_http_request_duration_seconds',
  decisions: 'adapi_serve_decisions_total',
  views: 'adapi_serve_views_total',
  clicks: 'adapi_serve_clicks_total',
  ledgerRows: 'adapi_ledger_batch_rows',
  ledgerCommit: 'adapi_ledger_commit_seconds',
  jobRuns: 'adapi_job_runs_total',
  jobFailures: 'adapi_job_failures_total',
  jobDuration: 'adapi_job_duration_seconds',
  pool: 'adapi_db_pool_connections',
  webhookAttempts: 'adapi_webhook_attempts_total',
  webhookDuration: 'adapi_webhook_attempt_duration_seconds',
  replicaUp: 'adapi_read_replica_up',
  replicaLag: 'adapi_read_replica_lag_seconds',
  lagTolerantReads: 'adapi_lag_tolerant_reads_total',
  replicaReadFailures: 'adapi_read_replica_failures_total',
  publicReportViews: 'adapi_public_report_views_total',
  clientAddressFallbacks: 'adapi_client_address_fallbacks_total',
} as const

/** A route label for requests that matched no route (never the raw URL: it would be unbounded). */
export const UNMATCHED_ROUTE = 'unmatched'
export const OTHER_REASON = 'other'
