/**
 * What `pg` needs to use the embedded engine as its server: a connection
 * object in place of pg's socket connection (pg.ClientConfig `connection`),
 * after the shape of PGlite's own adapter (@electric-sql/pglite/node-postgres),
 * whose engine must run on the calling thread. Here the messages pg writes are
 * serialized as usual, sent to the engine's thread in one batch per tick (a
 * parameterized query's parse, bind, describe, execute and sync make one
 * round trip), and the raw reply is parsed back into the events pg's client
 * listens to.
 */
import { EventEmitter } from 'node:events'
import { protocol } from '@electric-sql/pglite'
import type { EmbeddedEngine } from './engine.ts'

const { serialize, Parser } = protocol

type Bytes = Uint8Array

export class EngineConnection extends EventEmitter {
  // Read by pg's client and queries (they are its socket connection's fields).
  _connecting = false
  _ending = false
  readonly stream = { destroy: () => this.end() }
  /** Named statements the engine has parsed, shared by every client of this connection (pg's Query reads them). */
  parsedStatements: Record<string, string> = {}
  submittedNamedStatements: Record<string, string> = {}

  readonly #engine: EmbeddedEngine
  readonly #parser = new Parser()
  /** Messages written this tick, sent together when it ends. */
  #batch: Bytes[] = []
  /** The replies' handling, in the order their requests went out. */
  #replies: Promise<void> = Promise.resolve()

  constructor(engine: EmbeddedEngine) {
    super()
    this.#engine = engine
  }

  connect(): void {
    this._connecting = true
    // No start-up exchange: the engine is open and has one session; pg waits only for readyForQuery.
    process.nextTick(() => this.emit('readyForQuery'))
  }

  requestSsl(): void {}
  startup(): void {}
  cancel(): void {}
  password(): void {}
  ref(): void {}
  unref(): void {}

  query(text: string): void {
    this.#write(serialize.query(text))
  }
  parse(query: Parameters<typeof serialize.parse>[0]): void {
    this.#write(serialize.parse(query))
  }
  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.#write(serialize.bind(config))
  }
  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.#write(serialize.execute(config))
  }
  describe(msg: Parameters<typeof serialize.describe>[0]): void {
    this.#write(serialize.describe(msg))
  }
  close(msg: Parameters<typeof serialize.close>[0]): void {
    this.#write(serialize.close(msg))
  }
  flush(): void {
    this.#write(serialize.flush())
  }
  sync(): void {
    this.#write(serialize.sync())
  }
  sendCopyFromChunk(chunk: Bytes): void {
    this.#write(serialize.copyData(chunk.slice().buffer))
  }
  endCopyFrom(): void {
    this.#write(serialize.copyDone())
  }
  sendCopyFail(message: string): void {
    this.#write(serialize.copyFail(message))
  }

  /**
   * pg ends its client's connection (a client the pool discards); the engine's
   * session stays, and the next client of the pool takes this connection anew.
   */
  end(): void {
    this.#replies = this.#replies.then(() => {
      this.emit('end')
    })
    for (const name of this.eventNames()) this.removeAllListeners(name)
  }

  #write(bytes: Bytes): void {
    this.#batch.push(bytes)
    if (this.#batch.length === 1) queueMicrotask(() => this.#send())
  }

  #send(): void {
    const batch = concat(this.#batch)
    this.#batch = []
    const reply = this.#engine.exec(batch)
    // Handled below, in turn; until its turn comes a failure must not count as unhandled (which ends the process).
    reply.catch(() => {})
    this.#replies = this.#replies
      .then(() => reply)
      .then(
        (bytes) => this.#parser.parse(bytes, (message) => {
          if (this.listenerCount('message') > 0) this.emit('message', message)
          this.emit(message.name === 'error' ? 'errorMessage' : message.name, message)
        }),
        (err: unknown) => {
          this.emit('error', err)
        },
      )
  }
}

function concat(parts: Bytes[]): Bytes {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.byteLength
  }
  return out
}
