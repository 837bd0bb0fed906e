/**
 * The serving benchmark's figures: per measured window, then the median of the
 * windows and their spread (min–max); the issue-24 targets and whether the
 * median meets them; the tables printed at the end.
 */
import { median } from '../../tools/lib/stats.ts'
import type { WindowResult } from './load.ts'

/** A target's measured windows next to the baseline's of the same rounds (index i: round i). */
export interface Series {
  baseline: WindowResult[]
  service: WindowResult[]
}

export interface Spread {
  median: number
  min: number
  max: number
  /** One value per window (or per round, for a ratio). */
  values: number[]
}

export function spread(values: (number | null)[]): Spread | null {
  const xs = values.filter((x): x is number => x !== null && Number.isFinite(x))
  if (xs.length === 0) return null
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs), values: xs }
}

/** Service CPU per completed operation in µs (all threads of the server process). */
export const serverUs = (w: WindowResult): number | null => (w.cpu?.server == null || w.completed === 0 ? null : (w.cpu.server / w.completed) * 1e6)

/** The worker's (ROLE=worker, beside several web instances) CPU per completed operation in µs. */
export const workerUs = (w: WindowResult): number | null => (w.cpu?.worker == null || w.completed === 0 ? null : (w.cpu.worker / w.completed) * 1e6)

/** PostgreSQL CPU per completed operation in µs: the bench database's backends plus the shared auxiliary processes. */
export const postgresUs = (w: WindowResult): number | null =>
  !w.cpu?.postgres || w.completed === 0 ? null : ((w.cpu.postgres.bench + w.cpu.postgres.aux) / w.completed) * 1e6

/** WAL bytes PostgreSQL wrote per completed operation over the window. */
export const walPerOp = (w: WindowResult): number | null => (w.cpu?.walBytes == null || w.completed === 0 ? null : w.cpu.walBytes / w.completed)

/** Per round: the service's figure over the baseline's figure of the same round. */
export function ratios(s: Series, f: (w: WindowResult) => number | null): Spread | null {
  return spread(
    s.service.map((w, i) => {
      const a = f(w)
      const b = s.baseline[i] ? serverUs(s.baseline[i]) : null
      return a === null || b === null || b === 0 ? null : a / b
    }),
  )
}

export function throughputRatios(s: Series): Spread | null {
  return spread(s.service.map((w, i) => (s.baseline[i] && s.baseline[i].perSecond > 0 ? w.perSecond / s.baseline[i].perSecond : null)))
}

/** One line of the summary: a figure of one store, with its target when the issue sets one. */
export interface Figure {
  store: string
  name: string
  unit: 'µs' | '×' | 'ms' | 'MB' | '/s' | 'B'
  value: Spread | null
  /** The figure is met when the median is at most this. */
  atMost: number | null
  met: boolean | null
  /** Why the figure is not clean (drops, a contended machine, an exhausted pool…). */
  note: string
}

export function figure(store: string, name: string, unit: Figure['unit'], value: Spread | null, atMost: number | null = null, note = ''): Figure {
  return { store, name, unit, value, atMost, met: atMost === null || value === null ? null : value.median <= atMost, note }
}

function fmt(x: number, unit: Figure['unit']): string {
  if (unit === '×') return x.toFixed(2)
  if (unit === '/s') return x.toFixed(0)
  if (unit === 'ms' || unit === 'µs') return x < 10 ? x.toFixed(2) : x.toFixed(1)
  return x.toFixed(0)
}

/** Aligned columns: text columns left, numbers right. */
export function columns(rows: string[][], leftColumns: number): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
  return rows.map((r) => r.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd()).join('\n')
}

export function summaryTable(figures: Figure[]): string {
  const rows = [['store', 'figure', 'median', 'min–max', 'target', 'met', 'note']]
  for (const f of figures) {
    const v = f.value
    rows.push([
      f.store,
      f.name,
      v ? `${fmt(v.median, f.unit)} ${f.unit}` : '-',
      v ? `${fmt(v.min, f.unit)}–${fmt(v.max, f.unit)}` : '-',
      f.atMost === null ? 'info' : `≤ ${f.atMost} ${f.unit}`,
      f.met === null ? '' : f.met ? 'met' : 'MISSED',
      f.note,
    ])
  }
  return columns(rows, 2)
}

const med = (xs: (number | null)[], digits = 1) => {
  const s = spread(xs)
  return s ? s.median.toFixed(digits) : '-'
}

/**
 * Per series: the medians over its windows of the raw figures (rate, latency, CPU per operation, CPU shares).
 * With several instances "srv" is their sum, and a worker beside them has columns of its own ("wkr").
 * A series whose reference side is not the bare server (the attested views' unattested windows) names it
 * in `reference`; its rows then show PostgreSQL's and the worker's columns too.
 */
export function detailTable(series: { store: string; endpoint: string; load: string; s: Series; reference?: { endpoint: string; target: string; serviceTarget: string } }[]): string {
  const withWorker = series.some(({ s }) => s.service.some((w) => w.cpu?.worker != null))
  const rows = [['store', 'endpoint', 'load', 'target', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'srv µs/op', 'pg µs/op', 'srv %core', 'pg %core', 'gen %core', 'other %core', 'non-2xx', 'late', 'dropped']]
  if (withWorker) rows[0]!.splice(10, 0, 'wkr µs/op')
  if (withWorker) rows[0]!.splice(13, 0, 'wkr %core')
  for (const { store, endpoint, load, s, reference } of series) {
    for (const [who, ws] of [
      ['bare', s.baseline],
      ['service', s.service],
    ] as const) {
      /** The bare server's row: no PostgreSQL or worker of its own. */
      const bare = who === 'bare' && !reference
      const pct = (f: (w: WindowResult) => number | null) => med(ws.map((w) => (w.cpu ? f(w) : null)), 0)
      const non2xx = ws.reduce((n, w) => n + w.networkErrors + Object.entries(w.statuses).filter(([k]) => !k.startsWith('2')).reduce((a, [, c]) => a + c, 0), 0)
      const row = [
        who === 'bare' ? '' : store,
        who === 'bare' ? (reference?.endpoint ?? `${endpoint} (bare)`) : endpoint,
        load,
        who === 'bare' ? (reference?.target ?? 'bare') : (reference?.serviceTarget ?? who),
        med(ws.map((w) => w.perSecond), 0) + (ws.some((w) => w.exhausted) ? '*' : ''),
        med(ws.map((w) => w.latencyMs.p50), 2),
        med(ws.map((w) => w.latencyMs.p99), 2),
        med(ws.map((w) => w.latencyMs.max), 1),
        med(ws.map(serverUs)),
        bare ? '' : med(ws.map(postgresUs)),
        pct((w) => (w.cpu!.server ?? 0) / w.cpu!.wall * 100),
        bare ? '' : pct((w) => (w.cpu!.postgres ? ((w.cpu!.postgres.bench + w.cpu!.postgres.aux) / w.cpu!.wall) * 100 : null)),
        pct((w) => (w.cpu!.generator / w.cpu!.wall) * 100),
        pct((w) => w.cpu!.otherPctOfCore),
        String(non2xx),
        ws[0]?.open ? String(ws.reduce((n, w) => n + (w.open?.late ?? 0), 0)) : '',
        ws[0]?.open ? String(ws.reduce((n, w) => n + (w.open?.dropped ?? 0), 0)) : '',
      ]
      if (withWorker) {
        row.splice(10, 0, bare ? '' : med(ws.map(workerUs)))
        row.splice(13, 0, bare ? '' : pct((w) => (w.cpu!.worker === null ? null : (w.cpu!.worker / w.cpu!.wall) * 100)))
      }
      rows.push(row)
    }
  }
  return columns(rows, 4)
}
