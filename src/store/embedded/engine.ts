/**
 * The embedded store's engine, seen from the service's thread: PGlite runs in
 * a worker thread (src/store/embedded/worker.ts) and this is its handle. The
 * requests go out in order and the worker answers them in that order.
 *
 * A worker that dies (an engine crash, out of memory) fails every request
 * outstanding and every later one with EngineGoneError, whose code 08006
 * (connection failure) makes it store trouble: a 503 to the client and
 * /readyz not ready, until the service is restarted.
 */
import { Worker } from 'node:worker_threads'
import { failure, type EngineFailure, type EngineReply, type EngineRequest, type EngineStart } from './messages.ts'

/** An error the engine reported, its code kept (a PGlite start-up or dump failure). */
export class EngineError extends Error {
  readonly code: string | undefined
  constructor(error: EngineFailure) {
    super(error.message)
    this.code = error.code
  }
}

/** The engine's thread is gone: the request was not (or not surely) executed. */
export class EngineGoneError extends Error {
  /** PostgreSQL's connection_failure: store trouble (src/http/plugins/errors.ts). */
  readonly code = '08006'
  constructor(why: string) {
    super(`the embedded store's engine is gone: ${why}`)
  }
}

type Pending = { resolve: (reply: EngineReply) => void; reject: (err: Error) => void }

/**
 * The worker's entry. Built (`npm run build`: what `npm start` runs), it is the
 * JavaScript beside this file. Under tsx (tests, tools) it is TypeScript, and a
 * worker thread does not inherit tsx's loader, so a small bootstrap registers
 * it there before importing the entry.
 */
function workerEntry(): { script: string | URL; eval: boolean } {
  if (import.meta.url.endsWith('.js')) return { script: new URL('./worker.js', import.meta.url), eval: false }
  const entry = new URL('./worker.ts', import.meta.url).href
  const tsx = import.meta.resolve('tsx/esm/api')
  return { script: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}) })`, eval: true }
}
const WORKER = workerEntry()

export class EmbeddedEngine {
  readonly #worker: Worker
  readonly #pending = new Map<number, Pending>()
  #nextId = 1
  #gone: EngineGoneError | null = null

  private constructor(worker: Worker) {
    this.#worker = worker
    // Idle, the worker does not keep the process alive; a request outstanding does (see #track).
    worker.unref()
    worker.on('message', (message: EngineReply) => this.#settle(message))
    worker.on('error', (err) => this.#fail(new EngineGoneError(err.message)))
    worker.on('exit', (code) => this.#fail(new EngineGoneError(`its thread exited (${code})`)))
  }

  /** Starts the engine's thread and waits for PGlite to open (or throws why it did not). */
  static async start(start: EngineStart): Promise<EmbeddedEngine> {
    const transfer = start.loadDataDir ? [start.loadDataDir.bytes] : []
    const worker = new Worker(WORKER.script, { eval: WORKER.eval, execArgv: [], workerData: start, transferList: transfer })
    let onMessage = (_: EngineReply) => {}
    let onError = (_: Error) => {}
    let onExit = (_: number) => {}
    const opened = new Promise<void>((resolve, reject) => {
      onMessage = (message) => {
        if (message.kind === 'ready') resolve()
        else if (message.kind === 'failed') reject(new EngineError(message.error))
      }
      onError = (err) => reject(new EngineError(failure(err)))
      onExit = (code) => reject(new EngineGoneError(`its thread exited (${code}) while opening`))
    })
    worker.on('message', onMessage).on('error', onError).on('exit', onExit)
    try {
      await opened
    } catch (err) {
      await worker.terminate()
      throw err
    } finally {
      // Only these: the worker's own listeners (its port's reading) stay.
      worker.off('message', onMessage).off('error', onError).off('exit', onExit)
    }
    return new EmbeddedEngine(worker)
  }

  /** Runs wire-protocol messages; resolves to the engine's raw reply. */
  async exec(bytes: Uint8Array): Promise<Uint8Array> {
    // Only memory the bytes own outright moves to the other thread (a view into a shared slab is copied first).
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? bytes : bytes.slice()
    const reply = await this.#request({ id: 0, kind: 'exec', bytes: own }, [own.buffer as ArrayBuffer])
    if (reply.kind !== 'bytes') throw unexpected(reply)
    return reply.bytes
  }

  /** A gzipped tarball of the data directory. */
  async dump(): Promise<Blob> {
    const reply = await this.#request({ id: 0, kind: 'dump' })
    if (reply.kind !== 'dump') throw unexpected(reply)
    return new Blob([reply.bytes], { type: reply.type })
  }

  /** Closes PGlite (its files flushed) after every request sent before; then the thread ends. */
  async close(): Promise<void> {
    if (this.#gone) return
    await this.#request({ id: 0, kind: 'close' })
    await this.#worker.terminate()
  }

  #request(request: EngineRequest, transfer: ArrayBuffer[] = []): Promise<EngineReply> {
    if (this.#gone) return Promise.reject(this.#gone)
    const id = this.#nextId++
    return new Promise<EngineReply>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject })
      this.#track()
      this.#worker.postMessage({ ...request, id }, transfer)
    }).then((reply) => {
      if (reply.kind === 'error') throw new EngineError(reply.error)
      return reply
    })
  }

  #settle(message: EngineReply): void {
    if (!('id' in message)) return
    const pending = this.#pending.get(message.id)
    if (!pending) return
    this.#pending.delete(message.id)
    this.#track()
    pending.resolve(message)
  }

  #fail(err: EngineGoneError): void {
    this.#gone ??= err
    const pending = [...this.#pending.values()]
    this.#pending.clear()
    for (const p of pending) p.reject(this.#gone)
  }

  /** The worker keeps the process alive exactly while a request is outstanding. */
  #track(): void {
    if (this.#pending.size > 0) this.#worker.ref()
    else this.#worker.unref()
  }
}

function unexpected(reply: EngineReply): Error {
  return new Error(`the embedded engine answered ${reply.kind} to another request`)
}
