/** The command line of `npm run simulate` (scripts/simulate.ts). */
import { parseArgs } from 'node:util'
import { optionalNumber } from '../lib/args.ts'
import type { SimulationOptions } from './run.ts'
import { REVIEW_WINDOW_MINUTES } from './review/run.ts'

export const HELP = `npm run simulate -- [options]

  --url URL            running service, loopback only (default $SIMULATE_URL or http://127.0.0.1:8080)
  --viewers N          simulated installs, split across extension and terminal (default 200)
  --duration S         real seconds to run (default 30)
  --concurrency C      HTTP requests in flight at most (default min(viewers, 64))
  --countries LIST     e.g. US,DE,GB or US:40,DE:10,-:5 ("-" = no country); default a realistic mix
  --click-rate P       share of shown lines that are clicked (default 0.02)
  --setup              create an approved, billed advertiser and a few campaigns first (needs --admin-token)
  --admin-token T      operator token (default $SIMULATE_ADMIN_TOKEN)
  --time-scale K       on a CLOCK=manual service (needs --admin-token): move the service clock K x real time
  --seed N             PRNG seed for a reproducible run (default random, printed)
  --json               print the final summary as JSON on stdout
  --review             review mode: labelled honest and bot families on its own service (embedded store,
                       manual clock), then the real daily traffic review; prints per family what was billed,
                       refused at serving time and credited back (docs/simulator.md, "Review mode")
  --window M           review mode: minutes of traffic in the simulated day (default 20)
  --help`

export interface Cli {
  help: boolean
  /** Review mode (`--review`) with its seed and window; null for a plain run. */
  review: { seed: number; windowMinutes: number } | null
  /** Print the summary as JSON. */
  json: boolean
  /** The run's options (progress 'auto'; no abort signal yet). */
  options: SimulationOptions
}

export function parseCli(args: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Cli {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      viewers: { type: 'string' },
      duration: { type: 'string' },
      concurrency: { type: 'string' },
      countries: { type: 'string' },
      'click-rate': { type: 'string' },
      setup: { type: 'boolean' },
      'admin-token': { type: 'string' },
      'time-scale': { type: 'string' },
      seed: { type: 'string' },
      json: { type: 'boolean' },
      review: { type: 'boolean' },
      window: { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  })
  const help = values.help ?? false
  const review =
    values.review && !help
      ? { seed: optionalNumber('seed', values.seed) ?? 1, windowMinutes: optionalNumber('window', values.window) ?? REVIEW_WINDOW_MINUTES }
      : null
  return {
    help,
    review,
    json: values.json ?? false,
    options: {
      url: values.url ?? env.SIMULATE_URL ?? 'http://127.0.0.1:8080',
      // Numbers are read only for a run (--help never fails on them).
      ...(help
        ? {}
        : {
            viewers: optionalNumber('viewers', values.viewers),
            durationS: optionalNumber('duration', values.duration),
            concurrency: optionalNumber('concurrency', values.concurrency),
            clickRate: optionalNumber('click-rate', values['click-rate']),
            timeScale: optionalNumber('time-scale', values['time-scale']),
            seed: optionalNumber('seed', values.seed),
          }),
      countries: values.countries,
      setup: values.setup ?? false,
      adminToken: values['admin-token'] ?? env.SIMULATE_ADMIN_TOKEN,
      progress: 'auto',
    },
  }
}
