import type { Settings } from '../platform/env.ts'
import type { InstanceOptions } from './base.ts'
import type { Instance } from './instance.ts'
import { startAll } from './service.ts'
import { startWeb } from './web.ts'
import { startWorker } from './worker.ts'

/** Starts the instance ROLE asks for (docs/decisions/0061-role-web-worker-all-default-all.md): web, worker, or both in one process. */
export function startInstance(settings: Settings, options: InstanceOptions = {}): Promise<Instance> {
  switch (settings.role) {
    case 'web':
      return startWeb(settings, options)
    case 'worker':
      return startWorker(settings, options)
    case 'all':
      return startAll(settings, options)
  }
}
