/**
 * The embedded engine's thread: PGlite runs here, off the service's event
 * loop, so a long query (a two-year /stats, an export) never stalls serving.
 * It executes the requests of src/store/embedded/engine.ts one at a time, in
 * the order they came.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { failure, type EngineReply, type EngineRequest, type EngineStart } from './messages.ts'

const port = parentPort
if (!port) throw new Error('src/store/embedded/worker.ts runs as a worker thread')
const start = workerData as EngineStart

function reply(message: EngineReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer)
}

async function handle(lite: PGlite, request: EngineRequest): Promise<void> {
  try {
    if (request.kind === 'exec') {
      // PGlite's raw reply, copied out of its receive buffer; the copy's memory moves to the other thread.
      const bytes = await lite.execProtocolRaw(request.bytes)
      reply({ id: request.id, kind: 'bytes', bytes }, [bytes.buffer as ArrayBuffer])
    } else if (request.kind === 'dump') {
      const blob = await lite.dumpDataDir('gzip')
      const bytes = await blob.arrayBuffer()
      reply({ id: request.id, kind: 'dump', bytes, type: blob.type }, [bytes])
    } else {
      await lite.close()
      reply({ id: request.id, kind: 'closed' })
      port!.close()
    }
  } catch (err) {
    reply({ id: request.id, kind: 'error', error: failure(err) })
  }
}

async function main(): Promise<void> {
  let lite: PGlite
  try {
    const load = start.loadDataDir
    lite = await PGlite.create({ dataDir: start.dataDir, loadDataDir: load ? new Blob([load.bytes], { type: load.type }) : undefined })
  } catch (err) {
    reply({ kind: 'failed', error: failure(err) })
    port!.close()
    return
  }
  let queue = Promise.resolve()
  port!.on('message', (request: EngineRequest) => {
    queue = queue.then(() => handle(lite, request))
  })
  reply({ kind: 'ready' })
}

void main()
