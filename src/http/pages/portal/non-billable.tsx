import { count } from '../format.ts'
import { NON_BILLABLE_REASONS, type NonBillableCounts, type NonBillableReason } from '../../../domain/delivery.ts'
import { DataTable } from '../data-table.tsx'

/** Each reason in words, with what it means (the API's `non_billable` keys, in their order). */
const REASONS: Record<NonBillableReason, { label: string; means: string }> = {
  short_dwell: { label: 'Short view', means: 'Seen for under 9.5 seconds.' },
  repeat: { label: 'Repeat', means: 'The view of an impression already counted was reported again (once per impression).' },
  too_fast: { label: 'Too fast', means: 'The reported view was longer than the time since the ad was offered.' },
  viewer_frequency: { label: 'Same viewer', means: 'The viewer had a billable impression on this surface in the 10 seconds before.' },
  expired: { label: 'Late', means: 'Reported more than an hour after the ad was offered (once per impression).' },
  block_full: { label: 'Nothing left to bill', means: 'Every impression bought was already billed, or the campaign was cancelled.' },
  invalid_traffic: {
    label: 'Invalid traffic',
    means: 'The traffic did not look like people: too many viewers or views from one network, or a network or viewer operators blocked.',
  },
  unattested: { label: 'Not attested', means: 'The view carried no token from a signed-in account, and the service bills only attested views.' },
  invalid_token: { label: 'Bad token', means: 'The view carried an attestation token that was already used, altered or expired.' },
}

/** A share of the recorded views, one decimal (none for 0 and 100), with a no-break space before `%`. */
function share(n: number, total: number): string {
  if (total === 0) return '—'
  const pct = (100 * n) / total
  return `${pct === 0 || pct === 100 ? pct.toFixed(0) : pct.toFixed(1)}\u00a0%`
}

/** A row: the reason in words; its API key (`non_billable.short_dwell`, …) only as a tooltip, for whoever reads the API too. */
function Row(props: { label: string; name?: string; means: string; n: number; recorded: number }) {
  return (
    <tr>
      <th scope="row" class="row-name" title={props.name ? `In the API: non_billable.${props.name}` : undefined}>
        {props.label}
        <span class="muted">{props.means}</span>
      </th>
      <td class="num">{count(props.n)}</td>
      <td class="num">{share(props.n, props.recorded)}</td>
    </tr>
  )
}

/**
 * The recorded views of a period, billable and not, as a small table: a person reads seven numbers
 * faster than a chart. The rows add up to the last one (billed + every reason = recorded views).
 */
export function NonBillableTable(props: { id: string; billable: number; nonBillable: NonBillableCounts; period: string }) {
  const recorded = props.billable + NON_BILLABLE_REASONS.reduce((n, r) => n + props.nonBillable[r], 0)
  return (
    <DataTable
      labelledBy={`${props.id}-caption`}
      columns={['Views', { label: 'Count', num: true }, { label: 'Share', num: true }]}
      captionId={`${props.id}-caption`}
      caption={<>Recorded views {props.period}: billed, and why the others were not</>}
      foot={<Row label="Recorded views" means="Billed plus not billed." n={recorded} recorded={recorded} />}
    >
      <Row label="Billed" means="Billable impressions: the only views that cost money." n={props.billable} recorded={recorded} />
      {NON_BILLABLE_REASONS.map((r) => (
        <Row label={REASONS[r].label} name={r} means={REASONS[r].means} n={props.nonBillable[r]} recorded={recorded} />
      ))}
    </DataTable>
  )
}
