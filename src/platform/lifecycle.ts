/**
 * Where an instance is in its life, read by `/readyz` and every response:
 * once `draining` is set (SIGTERM/SIGINT, src/start/shutdown.ts), `/readyz`
 * answers 503 and every answer carries `Connection: close`, while requests
 * are still served until the listener closes.
 */
export interface Lifecycle {
  draining: boolean
}

export function createLifecycle(): Lifecycle {
  return { draining: false }
}
