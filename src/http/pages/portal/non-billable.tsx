import { count } from '../format.ts'
import { NON_BILLABLE_REASONS, type NonBillableCounts, type NonBillableReason } from '../../../domain/delivery.ts'

/** Each reason in words, with what it means (the API's `non_billable` keys, in their order). */
const REASONS: Record<NonBillableReason, { label: string; means: string }> = {
  short_dwell: { label: 'Short view', means: 'Seen for under 9.5 seconds.' },
  repeat: { label: 'Repeat', means: 'The view of an impression already counted was reported again (counted once per impression).' },
  too_fast: { label: 'Too fast', means: 'The reported view was longer than the time since the ad was offered.' },
  viewer_frequency: { label: 'Same viewer', means: 'The viewer had a billable impression on this surface in the 10 seconds before.' },
  expired: { label: 'Late', means: 'Reported more than an hour after the ad was offered (counted once per impression).' },
  block_full: { label: 'Nothing left to bill', means: 'Every impression bought was already billed, or the campaign was cancelled.' },
}

const share = (n: number, total: number) => (total === 0 ? '—' : `${((100 * n) / total).toFixed(n === 0 ? 0 : 1)} %`)

/**
 * The recorded views of a period, billable and not, as a small table: a person reads six numbers
 * faster than a chart. The rows add up to the last one (billable + every reason = recorded views).
 */
export function NonBillableTable(props: { id: string; billable: number; nonBillable: NonBillableCounts; period: string }) {
  const recorded = props.billable + NON_BILLABLE_REASONS.reduce((n, r) => n + props.nonBillable[r], 0)
  return (
    <div class="table-wrap" role="region" aria-labelledby={`${props.id}-caption`} tabIndex={0}>
      <table>
        <caption id={`${props.id}-caption`}>Recorded views {props.period}: billed, and why the others were not</caption>
        <thead>
          <tr>
            <th scope="col">Views</th>
            <th scope="col" class="num">
              Count
            </th>
            <th scope="col" class="num">
              Share
            </th>
            <th scope="col">Meaning</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <th scope="row">Billed</th>
            <td class="num">{count(props.billable)}</td>
            <td class="num">{share(props.billable, recorded)}</td>
            <td>Billable impressions.</td>
          </tr>
          {NON_BILLABLE_REASONS.map((r) => (
            <tr>
              <th scope="row">
                {REASONS[r].label} <code class="muted">{r}</code>
              </th>
              <td class="num">{count(props.nonBillable[r])}</td>
              <td class="num">{share(props.nonBillable[r], recorded)}</td>
              <td>{REASONS[r].means}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Recorded views</th>
            <td class="num">{count(recorded)}</td>
            <td class="num">{recorded === 0 ? '—' : '100 %'}</td>
            <td>Billed plus not billed; only billed views cost money.</td>
          </tr>
        </tfoot>
      </table>
    </div>
  )
}
