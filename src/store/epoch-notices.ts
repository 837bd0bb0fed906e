import pg from 'pg'

/** The channel the serving epoch's trigger announces each new epoch on (migration 0030). */
export const SERVING_EPOCH_CHANNEL = 'serving_epoch'
/** How long (real time) the dedicated listener waits before connecting again after it lost its connection. */
const RECONNECT_MS = 1_000

export type EpochListener = (epoch: number) => void

/**
 * The serving epoch, pushed (docs/decisions/0344-serving-state-by-push.md). Every connection of the
 * store's pools LISTENs on the channel: a change this process commits is announced on the very
 * connection that committed it, before its commit returns (PostgreSQL sends a session its own
 * notifications ahead of ReadyForQuery), so the instance that made a change serves by it at once. On
 * PostgreSQL one more connection stays listening while the pools' connections come and go, and
 * brings the changes other instances commit, within a round trip of their commit. A notice lost
 * while that connection is down is made good by the auction index's periodic re-read.
 */
export class EpochNotices {
  readonly #listeners = new Set<EpochListener>()
  #dedicated: pg.Client | null = null
  #reconnect: NodeJS.Timeout | null = null
  #closed = false

  /** Makes every connection `pool` opens from now on listen. */
  listenOn(pool: pg.Pool): void {
    pool.on('connect', (client) => this.#listen(client))
  }

  /** PostgreSQL: keeps one connection listening, reconnecting after RECONNECT_MS when it drops. */
  keepListening(config: pg.ClientConfig): void {
    if (this.#closed) return
    const client = new pg.Client(config)
    this.#dedicated = client
    const retry = () => {
      if (this.#closed || this.#dedicated !== client) return
      this.#dedicated = null
      client.removeAllListeners()
      client.on('error', () => {})
      void client.end().catch(() => {})
      this.#reconnect = setTimeout(() => this.keepListening(config), RECONNECT_MS)
      this.#reconnect.unref()
    }
    client.on('error', retry)
    client.on('end', retry)
    this.#listen(client)
    client.connect().catch(retry)
  }

  #listen(client: pg.Client): void {
    client.on('notification', (n) => {
      if (n.channel !== SERVING_EPOCH_CHANNEL || n.payload === undefined) return
      const epoch = Number(n.payload)
      if (Number.isSafeInteger(epoch)) for (const l of this.#listeners) l(epoch)
    })
    // Queued ahead of the connection's first query; a connection that cannot listen fails that query too.
    client.query(`LISTEN ${SERVING_EPOCH_CHANNEL}`).catch(() => {})
  }

  subscribe(listener: EpochListener): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  async close(): Promise<void> {
    this.#closed = true
    if (this.#reconnect) clearTimeout(this.#reconnect)
    const client = this.#dedicated
    this.#dedicated = null
    if (client) {
      client.removeAllListeners()
      client.on('error', () => {})
      await client.end().catch(() => {})
    }
  }
}
