import assert from 'node:assert/strict'
import parsePrometheusTextFormat, { type PrometheusFamily, type PrometheusSample } from 'parse-prometheus-text-format'

/**
 * parse-prometheus-text-format merges every series of a labelled histogram
 * into one (its flattenMetrics keeps only the `le` label), so each histogram
 * series is parsed on its own here: its bucket, sum and count lines as an
 * unlabelled histogram, and its `_count` line as a gauge for the labels.
 */
function histogramSeries(name: string, lines: readonly string[]): PrometheusSample[] {
  const bySeries = new Map<string, string[]>()
  for (const line of lines) {
    const match = /^(\w+?)(?:\{(.*)\})? (\S+)$/.exec(line)
    assert.ok(match, `a sample line: ${line}`)
    const labels = (match[2] ?? '').replace(/(^|,)le="[^"]*"/, '').replace(/^,/, '')
    const series = bySeries.get(labels) ?? []
    series.push(`${match[1]}${match[2] === undefined ? '' : '{' + match[2].split(',').filter((l) => l.startsWith('le=')).join(',') + '}'} ${match[3]}`)
    bySeries.set(labels, series)
  }
  return [...bySeries].map(([labels, series]) => {
    const [parsed] = parsePrometheusTextFormat(`# TYPE ${name} histogram\n${series.join('\n')}\n`)
    const [labelled] = parsePrometheusTextFormat(`# TYPE ${name}_count gauge\n${name}_count${labels ? `{${labels}}` : ''} 0\n`)
    assert.ok(parsed && parsed.metrics.length === 1 && labelled)
    return { ...parsed.metrics[0]!, labels: labelled.metrics[0]!.labels ?? {} }
  })
}

/** A scrape parsed by a Prometheus text-format parser, with lookups by name and labels. */
export class Scrape {
  readonly families: Map<string, PrometheusFamily>
  constructor(readonly text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]))
    for (const family of this.families.values()) {
      if (family.type !== 'HISTOGRAM') continue
      const lines = text.split('\n').filter((l) => /^\w/.test(l) && (l.startsWith(`${family.name}_bucket`) || l.startsWith(`${family.name}_sum`) || l.startsWith(`${family.name}_count`)))
      family.metrics = histogramSeries(family.name, lines)
    }
  }

  family(name: string): PrometheusFamily {
    const f = this.families.get(name)
    assert.ok(f, `${name} is in the scrape`)
    return f
  }

  /** The sample of `name` whose labels include `labels`; undefined when there is none. */
  sample(name: string, labels: Record<string, string> = {}): PrometheusSample | undefined {
    return this.family(name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  }

  /** A counter's or gauge's value (0 when the labelled sample is absent). */
  value(name: string, labels: Record<string, string> = {}): number {
    const s = this.sample(name, labels)
    return s?.value === undefined ? 0 : Number(s.value)
  }

  /** A histogram's observation count (0 when the labelled sample is absent). */
  count(name: string, labels: Record<string, string> = {}): number {
    const s = this.sample(name, labels)
    return s?.count === undefined ? 0 : Number(s.count)
  }
}

/** Every histogram's buckets: cumulative, so never decreasing with `le`, and +Inf equals the count. */
export function assertHistogramsMonotone(scrape: Scrape): void {
  for (const family of scrape.families.values()) {
    if (family.type !== 'HISTOGRAM') continue
    for (const sample of family.metrics) {
      const buckets = Object.entries(sample.buckets ?? {})
        .map(([le, n]) => [le === '+Inf' ? Infinity : Number(le), Number(n)] as const)
        .sort((a, b) => a[0] - b[0])
      assert.ok(buckets.length > 0, `${family.name} has buckets`)
      for (let i = 1; i < buckets.length; i++) {
        assert.ok(buckets[i]![1] >= buckets[i - 1]![1], `${family.name} ${JSON.stringify(sample.labels)}: bucket le=${buckets[i]![0]} below the one before`)
      }
      assert.equal(buckets.at(-1)![0], Infinity, `${family.name} has a +Inf bucket`)
      assert.equal(buckets.at(-1)![1], Number(sample.count), `${family.name}: +Inf bucket equals the count`)
    }
  }
}
