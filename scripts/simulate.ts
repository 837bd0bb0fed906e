/**
 * Traffic simulator for the serving endpoints (operations.md section 2),
 * driven against a RUNNING service over HTTP.
 *
 *   npm run simulate -- --url http://127.0.0.1:8080 --viewers 200 --duration 30
 *   npm run simulate -- --setup --admin-token T --time-scale 10      # on CLOCK=manual
 *
 * Each simulated viewer is one install id of the editor extension or the
 * terminal status line, in one country, behind one source address (a
 * distinct X-Forwarded-For from the 198.18.0.0/15 benchmarking range, so
 * the per-address limits see many clients when the service runs with
 * TRUST_PROXY=1). A viewer loops: decision → the line stays on screen for
 * its dwell → view (→ sometimes a click) → a pause, never asking for a new
 * decision less than ten seconds after the previous one (what a real client
 * does).
 *
 * Time. The service refuses a dwell longer than the service-clock time that
 * passed since the decision, so a viewer must really let the dwell pass:
 *  - system clock: it waits the dwell in real time;
 *  - `--time-scale K` on a service started with CLOCK=manual (needs
 *    `--admin-token`): one ticker moves the service clock forward through
 *    POST /admin/v1/clock every `tickMs` of real time, K times faster than real
 *    time, and a viewer sends its view only once the clock, as confirmed by the
 *    service, has passed decision time + dwell. Time on the service moves for
 *    everyone, jobs that fall due run as usual, and a run of D seconds moves the
 *    clock about K × D seconds. Without --time-scale, a manual-clock service
 *    (detected with the admin token) is driven at K = 1.
 *
 * Every loop is bounded in count and time and the run stops by itself. It only
 * ever talks to the loopback origin given in --url: URLs in answers (view_url,
 * click_url, redirect targets) are never followed.
 *
 * `--review` is another mode (tools/simulate/review/): labelled honest and bot families on a
 * service of its own, then the real daily traffic review, and per family what it credited back.
 *
 * `runSimulation(options)` is the programmatic entry point (the CLI wraps it).
 * The parts: tools/simulate/args.ts (this command line), traffic.ts (the
 * viewers and their behaviour), clock.ts (the timelines), setup.ts,
 * run.ts (one run) and report.ts (counters, progress, summary).
 */
import { pathToFileURL } from 'node:url'
import { HELP, parseCli } from '../tools/simulate/args.ts'
import { summaryText } from '../tools/simulate/report.ts'
import { runSimulation } from '../tools/simulate/run.ts'
import { reviewTable, runReviewSimulation } from '../tools/simulate/review/run.ts'

export { runSimulation, type SimulationOptions } from '../tools/simulate/run.ts'
export { summaryText, type Summary } from '../tools/simulate/report.ts'
export { reviewTable, runReviewSimulation, TARGETS, type ReviewSummary } from '../tools/simulate/review/run.ts'

async function main(): Promise<void> {
  const cli = parseCli()
  if (cli.help) {
    process.stdout.write(`${HELP}\n`)
    return
  }
  if (cli.review) {
    const summary = await runReviewSimulation({ ...cli.review, progress: (line) => process.stderr.write(`${line}\n`) })
    process.stdout.write(cli.json ? `${JSON.stringify(summary, null, 2)}\n` : `${reviewTable(summary)}\n`)
    return
  }
  const controller = new AbortController()
  process.once('SIGINT', () => controller.abort())
  const summary = await runSimulation({ ...cli.options, signal: controller.signal })
  process.stdout.write(cli.json ? `${JSON.stringify(summary, null, 2)}\n` : `${summaryText(summary)}\n`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    process.stderr.write(`simulate: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  })
}
