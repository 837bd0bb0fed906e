import pino, { type DestinationStream } from 'pino'
import type { Settings } from './env.ts'

/**
 * Where log lines go: JSON lines on stdout (production, tests, anything that
 * reads them), or readable lines through pino-pretty (a worker thread) when a
 * person watches a terminal: LOG_FORMAT=pretty, or LOG_FORMAT=auto on a TTY.
 */
export function logDestination(settings: Pick<Settings, 'logFormat'>): DestinationStream {
  const pretty = settings.logFormat === 'pretty' || (settings.logFormat === 'auto' && process.stdout.isTTY === true)
  if (!pretty) return pino.destination(1)
  return pino.transport({ target: 'pino-pretty', options: { destination: 1, colorize: process.stdout.isTTY === true, translateTime: 'SYS:standard' } })
}
