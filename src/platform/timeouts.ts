/**
 * Every timeout and limit that bounds how long the service waits on a
 * dependency or a client, in one place (docs/operations.md, "Timeouts and
 * limits", lists each with the answer a client gets). These are real-time
 * bounds, not service time: a manual clock does not move them.
 */
export const TIMEOUTS = Object.freeze({
  /** The request pool: what HTTP requests and the serving ledger run on. */
  pg: Object.freeze({
    /** Opening a connection, and waiting for a free pooled one (pg-pool `connectionTimeoutMillis`). */
    connectMs: 3_000,
    /** Server side: a statement running longer is cancelled (SQLSTATE 57014). */
    statementMs: 5_000,
    /** Server side: a transaction left idle this long is ended with its session (SQLSTATE 25P03). */
    idleInTransactionMs: 10_000,
    /**
     * Client side: no answer at all for this long (a stalled server or network; statement_timeout
     * never fires then) fails the query, and the connection is discarded, not pooled again.
     */
    queryMs: 6_000,
    /** Connections in the request pool (the `poolSize` option overrides it). */
    poolSize: 10,
    /** TCP keepalive probes start after this much idle time on a connection. */
    keepAliveInitialDelayMs: 10_000,
  }),
  /** The jobs' pool (rollups, invoicing, exports, expiry, migrations): long statements are their normal. */
  pgJobs: Object.freeze({
    connectMs: 10_000,
    statementMs: 10 * 60_000,
    idleInTransactionMs: 60_000,
    queryMs: 10 * 60_000 + 10_000,
    /** One connection holds a job's advisory lock while the others do its work. */
    poolSize: 4,
  }),
  /**
   * The read replica (DATABASE_READ_URL, docs/decisions/0350-checked-periodically-bounded-and-failing-towards-the-primary.md): shorter than the primary's, because
   * a failed replica read runs again on the primary and the request must still answer within its deadline.
   */
  pgReplica: Object.freeze({
    connectMs: 1_000,
    statementMs: 4_000,
    idleInTransactionMs: 10_000,
    /** A stalled replica fails a read after this; the read then runs on the primary. */
    queryMs: 4_500,
    poolSize: 10,
    /** How often the replica's lag is measured (the primary's and the replica's WAL positions). */
    checkEveryMs: 1_000,
    /** One measurement must answer within this, else the replica counts as down until the next one. */
    checkTimeoutMs: 1_000,
  }),
  /** The export worker's reads on the replica: a ledger page, or the plan's count, well under a minute. */
  pgReplicaJobs: Object.freeze({
    connectMs: 3_000,
    statementMs: 60_000,
    idleInTransactionMs: 60_000,
    queryMs: 65_000,
    poolSize: 4,
  }),
  /** Fetching the attester's JWKS (ATTESTER_JWKS_URL): past it a token request answers 503 with Retry-After. */
  attesterJwksMs: 2_000,
  /** After fetching the attester's JWKS, no new fetch for this long, whatever `kid`s JWTs name (a flood of made-up kids costs one fetch each 5 s). */
  attesterJwksCooldownMs: 5_000,
  redis: Object.freeze({
    /** Opening the connection. */
    connectMs: 1_000,
    /**
     * One command (or MULTI) without a reply this long fails; the caller falls back to local counters.
     * Not lower: a busy event loop (a burst of requests) delays reading a reply that has arrived, and a
     * false timeout would split the shared lockout into per-instance ones.
     */
    commandMs: 1_000,
    /** Reconnect backoff: attempt n waits min(n × step, max). */
    reconnectStepMs: 100,
    reconnectMaxMs: 2_000,
    /** After a failure, calls go to the local counters this long before one call probes Redis again. */
    circuitOpenMs: 1_000,
  }),
  http: Object.freeze({
    /** The whole request, headers and body, must arrive within this (Node `requestTimeout`; 408 or the socket closed). */
    requestMs: 10_000,
    /** The request head must arrive within this (Node `headersTimeout`). */
    headersMs: 5_000,
    /** An idle keep-alive connection is closed after this. */
    keepAliveMs: 5_000,
    /** A socket with no activity at all for this long is destroyed (Fastify `connectionTimeout`). */
    socketIdleMs: 10_000,
    /** How often Node checks requestTimeout and headersTimeout (its default of 30 s would let a slow body linger 40 s). */
    checkIntervalMs: 1_000,
    /**
     * Open connections at once; further ones are refused at accept. Well below the process's file
     * descriptor limit (commonly 20 000 or more in containers; raise `ulimit -n` first if this is raised),
     * leaving room for the store, Redis and log files.
     */
    maxConnections: 2_000,
    /** A request that has not started its answer after this gets 503 + Retry-After (the deadline safety net). */
    deadlineMs: 9_000,
    /** Retry-After (seconds) on a 503 for a stalled dependency or the deadline. */
    retryAfterS: 2,
  }),
  webhooks: Object.freeze({
    /** One delivery attempt: resolving, connecting, sending and the receiver's answer together (else `timeout`, retried). */
    attemptMs: 10_000,
    /**
     * A sender's claim on a message (real time, the store's clock): longer than an attempt, so a live
     * sender never shares a message; a crashed sender's message is sent again once it lapses.
     */
    claimMs: 15_000,
    /** How often an instance that delivers looks for due messages (real time). */
    pollMs: 1_000,
    /** Attempts in flight at once per instance; a look claims only the free slots. */
    batch: 10,
  }),
  /** GET /readyz: the store must answer a trivial query within this. */
  readinessMs: 2_000,
})
