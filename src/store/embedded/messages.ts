/**
 * The messages between the service's thread and the embedded engine's worker
 * thread (src/store/embedded/worker.ts). Wire-protocol bytes go both ways
 * untouched: the worker runs them through PGlite and answers with PGlite's
 * raw reply, which the service's thread parses (an error's code and detail
 * survive, which a structured-cloned Error would lose).
 */

/** What the worker is started with (workerData). */
export interface EngineStart {
  /** Where PGlite keeps its files; undefined: in memory. */
  dataDir: string | undefined
  /** A dump of a data directory to start from (tests clone a migrated template). */
  loadDataDir: { bytes: ArrayBuffer; type: string } | undefined
}

export type EngineRequest =
  | { id: number; kind: 'exec'; bytes: Uint8Array }
  | { id: number; kind: 'dump' }
  | { id: number; kind: 'close' }

/** A failure as it crosses threads: the message and, when it has one, the code. */
export interface EngineFailure {
  message: string
  code: string | undefined
}

export type EngineReply =
  | { kind: 'ready' }
  | { kind: 'failed'; error: EngineFailure }
  | { id: number; kind: 'bytes'; bytes: Uint8Array }
  | { id: number; kind: 'dump'; bytes: ArrayBuffer; type: string }
  | { id: number; kind: 'closed' }
  | { id: number; kind: 'error'; error: EngineFailure }

export function failure(err: unknown): EngineFailure {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : undefined
  return { message: err instanceof Error ? err.message : String(err), code }
}
