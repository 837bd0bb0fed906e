/** parse-prometheus-text-format ships no types: its output, as its README documents it (prom2json's shape). */
declare module 'parse-prometheus-text-format' {
  export interface PrometheusSample {
    labels?: Record<string, string>
    /** Counters, gauges, untyped. */
    value?: string
    /** Histograms: cumulative count per upper bound (`le`). */
    buckets?: Record<string, string>
    /** Histograms and summaries. */
    count?: string
    sum?: string
  }
  export interface PrometheusFamily {
    name: string
    help: string
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'
    metrics: PrometheusSample[]
  }
  export default function parsePrometheusTextFormat(text: string): PrometheusFamily[]
}
