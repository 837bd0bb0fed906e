import { Page } from '../layout.tsx'
import { Chart } from '../chart.tsx'
import { count, utc } from '../format.ts'
import { axisTime, bucketText } from '../portal/delivery.tsx'
import { disclosedAd } from '../../../domain/preview.ts'
import type { PublicReport } from '../../../services/public-report.ts'
import { DataTable } from '../data-table.tsx'
import { isDefaultCampaignName } from '../../../domain/campaign-order.ts'
import { deliveryAxis } from '../../../domain/chart-geometry.ts'

/** A campaign's shareable delivery report (operations.md section 5). Only what PublicReport carries: no account data. */

const STATUS_WORDS: Record<string, string> = {
  active: 'Delivering',
  paused: 'Paused',
  cancelled_user: 'Ended by the advertiser',
  completed: 'Completed: every impression delivered',
}

const SURFACE_WORDS: Record<string, string> = { extension: 'Editor extension', terminal: 'Terminal status line' }
const PER = { hour: 'hour', day: 'day', month: 'month' } as const

/**
 * What the report is called for the person who got its link: the campaign's
 * name; when the advertiser gave none (a generated "API campaign - <date>"),
 * the brand, else the ad line itself (issue 35).
 */
export function reportHeading(r: Pick<PublicReport, 'name' | 'brand' | 'ad_line'>): string {
  if (!isDefaultCampaignName(r.name)) return r.name
  return r.brand ?? r.ad_line
}

export function ReportPage(props: { report: PublicReport }) {
  const r = props.report
  const heading = reportHeading(r)
  const share = r.impressions_bought > 0 ? Math.min(100, Math.floor((r.impressions_delivered * 100) / r.impressions_bought)) : 0
  return (
    <Page title={`${heading}: delivery report`} heading={heading} area="public" noindex>
      <p class="muted">
        Delivery report{r.brand ? <> for {r.brand}</> : null} · {STATUS_WORDS[r.status] ?? r.status} · generated {utc(r.generated_at)}
      </p>
      <h2>The ad</h2>
      <p class="adline">
        <span class="ad">{disclosedAd(r.ad_line, r.brand)}</span>
      </p>
      <h2>Delivery</h2>
      <div class="grid">
        <div class="card">
          <div class="stat-label">Impressions delivered</div>
          <p class="stat">
            {count(r.impressions_delivered)} <span class="muted">of {count(r.impressions_bought)}</span>
          </p>
          <progress class="progress" max={100} value={share} aria-label={`${share}% delivered`}>
            {share}%
          </progress>
        </div>
        <div class="card">
          <div class="stat-label">Running since</div>
          <p class="stat">{utc(r.created_at)}</p>
        </div>
      </div>
      {r.delivery ? (
        <Chart
          id="report-impressions"
          title={`Billable impressions by ${PER[r.delivery.granularity]}`}
          axisLabel="Impressions"
          valueLabel="Billable impressions"
          points={r.delivery.buckets.map((b) => ({ t: b.t, end: b.end, value: b.impressions }))}
          axis={deliveryAxis({ startMs: r.delivery.startMs, endMs: r.delivery.endMs }, r.delivery.granularity)}
          nowMs={r.generated_at.getTime()}
          partialText={`so far, at ${utc(r.generated_at)}`}
          formatValue={count}
          formatAxisTime={(t) => axisTime(t, r.delivery!.granularity)}
          formatTime={(t) => bucketText(t, r.delivery!.granularity)}
          integer
          kind="bar"
          tone="primary"
          emptyText="No delivery yet"
          caption={<>Billable impressions by {PER[r.delivery.granularity]} (UTC) since the campaign started.</>}
        />
      ) : (
        <p class="muted">The delivery chart is not available right now; the totals above are current.</p>
      )}
      {r.by_surface.length > 1 || r.by_country.length > 0 ? (
        <>
          <h2>Where it was seen</h2>
          <DataTable label="Impressions by surface and country" columns={['Where', { label: 'Billable impressions', num: true }]}>
            {r.by_surface.map((s) => (
              <tr>
                <td>{SURFACE_WORDS[s.surface] ?? s.surface}</td>
                <td class="num">{count(s.impressions)}</td>
              </tr>
            ))}
            {r.by_country.map((c) => (
              <tr>
                <td>Country {c.country}</td>
                <td class="num">{count(c.impressions)}</td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
      <p class="muted">
        Billable impressions are views of at least 9.5 seconds within the frequency limits. This page is public: anyone with its link can see it.
      </p>
    </Page>
  )
}
