/**
 * What a run counts, the summary it returns, and how both are shown: the
 * progress line while it runs and the text summary at the end.
 */
import { round2, type LatencySummary, type Samples } from '../lib/stats.ts'
import type { DwellClass } from './traffic.ts'

export interface Summary {
  url: string
  seed: number
  viewers: number
  concurrency: number
  durationS: number
  elapsedS: number
  clock: { kind: 'system' | 'manual' | 'unknown'; timeScale: number | null; serviceSecondsAdvanced: number | null; note: string | null }
  setup: { userId: string; campaigns: { campaignId: string; adLine: string; cpmUsd: number; surface: string; countries: string[] | null }[] } | null
  decisions: { total: number; filled: number; noFill: number; perSecond: number }
  views: {
    total: number
    perSecond: number
    /**
     * Views the simulator expects to be billable: dwell >= 9.5 s. (A simulated client never asks for a
     * new line within 0.5 s of reporting a billable view, so its billable views are always at least
     * 10 s apart on the service clock and the per-viewer rule never applies; inventory is not modelled.)
     */
    expectedBillable: number
    billablePct: number
    dwell: { short: number; boundary: number; long: number }
  }
  clicks: number
  /** Offers still on screen when the run ended (no view sent). */
  openAtEnd: number
  errors: { total: number; rateLimited: number; network: number; byStatus: Record<string, number> }
  latencyMs: { decision: LatencySummary; view: LatencySummary; click: LatencySummary }
  winners: Record<string, number>
  /** Server-side check (with setup): billed impressions of the setup campaigns vs the simulator's expectation for them. */
  billing: { billedBySetupCampaigns: number; expectedBillableForSetupCampaigns: number } | null
}

export interface Counters {
  decisions: number
  filled: number
  noFill: number
  views: number
  expectedBillable: number
  clicks: number
  openAtEnd: number
  errors: number
  rateLimited: number
  network: number
  byStatus: Map<string, number>
  dwell: Record<DwellClass, number>
  winners: Map<string, number>
  expectedByAdLine: Map<string, number>
}

export function newCounters(): Counters {
  return {
    decisions: 0,
    filled: 0,
    noFill: 0,
    views: 0,
    expectedBillable: 0,
    clicks: 0,
    openAtEnd: 0,
    errors: 0,
    rateLimited: 0,
    network: 0,
    byStatus: new Map(),
    dwell: { short: 0, boundary: 0, long: 0 },
    winners: new Map(),
    expectedByAdLine: new Map(),
  }
}

export function bump<K>(m: Map<K, number>, k: K, by = 1): void {
  m.set(k, (m.get(k) ?? 0) + by)
}

export interface Latencies {
  decision: Samples
  view: Samples
  click: Samples
}

/** What the run knows besides its counters. */
export type RunFacts = Pick<Summary, 'url' | 'seed' | 'viewers' | 'concurrency' | 'durationS' | 'clock' | 'setup' | 'billing'> & { elapsedS: number }

export function buildSummary(run: RunFacts, c: Counters, lat: Latencies): Summary {
  const { elapsedS } = run
  return {
    url: run.url,
    seed: run.seed,
    viewers: run.viewers,
    concurrency: run.concurrency,
    durationS: run.durationS,
    elapsedS: round2(elapsedS),
    clock: run.clock,
    setup: run.setup,
    decisions: { total: c.decisions, filled: c.filled, noFill: c.noFill, perSecond: round2(c.decisions / elapsedS) },
    views: {
      total: c.views,
      perSecond: round2(c.views / elapsedS),
      expectedBillable: c.expectedBillable,
      billablePct: c.views > 0 ? round2((100 * c.expectedBillable) / c.views) : 0,
      dwell: { ...c.dwell },
    },
    clicks: c.clicks,
    openAtEnd: c.openAtEnd,
    errors: { total: c.errors, rateLimited: c.rateLimited, network: c.network, byStatus: Object.fromEntries(c.byStatus) },
    latencyMs: { decision: lat.decision.summary(), view: lat.view.summary(), click: lat.click.summary() },
    winners: Object.fromEntries([...c.winners].sort((a, b) => b[1] - a[1])),
    billing: run.billing,
  }
}

export interface ProgressOptions {
  mode: 'auto' | 'tty' | 'plain' | 'off'
  out: NodeJS.WriteStream
  counters: Counters
  /** performance.now() at the start of the run. */
  started: number
  durationS: number
  /** The manual clock's advance so far and its speed-up; null on the system clock. */
  serviceClock: (() => { seconds: number; timeScale: number | null }) | null
}

/**
 * Progress while the run goes: one line rewritten every second on a TTY, a
 * plain line every five seconds otherwise, nothing with mode 'off'. `stop`
 * ends the ticking; `finish` writes the TTY's last line for good.
 */
export function startProgress(o: ProgressOptions): { stop(): void; finish(): void } {
  const { out, counters: c } = o
  const tty = o.mode === 'tty' || (o.mode === 'auto' && Boolean(out.isTTY))
  const plain = o.mode === 'plain' || (o.mode === 'auto' && !out.isTTY)
  let last = { t: performance.now(), decisions: 0, views: 0 }
  let lastPlain = performance.now()
  const line = () => {
    const now = performance.now()
    const dt = (now - last.t) / 1000
    const dps = dt > 0 ? (c.decisions - last.decisions) / dt : 0
    const vps = dt > 0 ? (c.views - last.views) / dt : 0
    last = { t: now, decisions: c.decisions, views: c.views }
    const pct = c.views > 0 ? Math.round((100 * c.expectedBillable) / c.views) : 0
    const svc = o.serviceClock?.()
    const clock = svc ? `  svc clock +${Math.round(svc.seconds)}s (x${svc.timeScale})` : ''
    return (
      `t=${Math.round((now - o.started) / 1000)}s/${o.durationS}s  decisions ${dps.toFixed(1)}/s  views ${vps.toFixed(1)}/s  ` +
      `billable ${pct}%  clicks ${c.clicks}  no-fill ${c.noFill}  errors ${c.errors}${c.rateLimited ? ` (429: ${c.rateLimited})` : ''}${clock}`
    )
  }
  const ticker =
    tty || plain
      ? setInterval(() => {
          if (tty) {
            const cols = out.columns || 120
            out.write(`\r\x1b[2K${line().slice(0, cols - 1)}`)
          } else if (performance.now() - lastPlain >= 5_000) {
            lastPlain = performance.now()
            out.write(`${line()}\n`)
          }
        }, 1_000)
      : null
  return {
    stop() {
      if (ticker) clearInterval(ticker)
    },
    finish() {
      if (tty) out.write(`\r\x1b[2K${line()}\n`)
    },
  }
}

export function summaryText(s: Summary): string {
  const l = s.latencyMs
  const lines = [
    `simulated ${s.viewers} viewers for ${s.elapsedS}s against ${s.url} (seed ${s.seed}, concurrency ${s.concurrency})`,
    `clock: ${s.clock.kind}${s.clock.timeScale ? `, x${s.clock.timeScale}, service time advanced ${s.clock.serviceSecondsAdvanced}s` : ''}`,
    `decisions: ${s.decisions.total} (${s.decisions.perSecond}/s), filled ${s.decisions.filled}, no fill (204) ${s.decisions.noFill}; p50 ${l.decision.p50} ms, p99 ${l.decision.p99} ms`,
    `views: ${s.views.total} (${s.views.perSecond}/s), expected billable ${s.views.expectedBillable} (${s.views.billablePct}%); ` +
      `dwell long ${s.views.dwell.long} / boundary ${s.views.dwell.boundary} / short ${s.views.dwell.short}; p50 ${l.view.p50} ms, p99 ${l.view.p99} ms`,
    `clicks: ${s.clicks}; offers still on screen at the end: ${s.openAtEnd}`,
    `errors: ${s.errors.total} (429: ${s.errors.rateLimited}, network: ${s.errors.network}${Object.keys(s.errors.byStatus).length ? `, by status ${JSON.stringify(s.errors.byStatus)}` : ''})`,
    `winners: ${Object.entries(s.winners).map(([k, v]) => `${v} × "${k}"`).join(', ') || 'none'}`,
  ]
  if (s.billing) {
    lines.push(
      `billing check: the setup campaigns billed ${s.billing.billedBySetupCampaigns}; the simulator expected ${s.billing.expectedBillableForSetupCampaigns}`,
    )
  }
  if (s.errors.rateLimited > 0) lines.push('hint: 429s from one address usually mean the service does not run with TRUST_PROXY=1')
  return lines.join('\n')
}
