import { Page } from '../layout.tsx'
import { count, utcDay } from '../format.ts'
import { LEADERBOARD_DAYS, LEADERBOARD_MAX_ROWS, type LeaderboardRow } from '../../../domain/leaderboard.ts'
import { DAY_MS } from '../../../domain/stats.ts'
import { DataTable } from '../data-table.tsx'

export interface LeaderboardView {
  startMs: number
  endMs: number
  behind: boolean
  brands: LeaderboardRow[]
}

/** `/leaderboard`: the brands, their billable impressions, and the window they were counted in (pure rendering). */
export function LeaderboardPage(props: LeaderboardView) {
  const first = utcDay(new Date(props.startMs))
  const last = utcDay(new Date(props.endMs - DAY_MS))
  return (
    <Page title="Leaderboard" heading="Brand leaderboard" area="public" path="/leaderboard" stylesheets={['/assets/public.css']}>
      <p>
        Brands ranked by billable impressions over the last {LEADERBOARD_DAYS} days, from campaigns whose advertiser opted in to the
        leaderboard and named a brand. Spellings that differ only in letter case or surrounding spaces count as one brand.
      </p>
      <p class="muted">
        Counted: {LEADERBOARD_DAYS} whole days, <time dateTime={new Date(props.startMs).toISOString()}>{first}</time> to{' '}
        <time dateTime={new Date(props.endMs - DAY_MS).toISOString()}>{last}</time> (UTC). A day is counted once it is closed, shortly after
        midnight UTC.
      </p>
      {props.behind ? (
        <p class="notice" role="status">
          The daily totals after {last} are not closed yet, so the board shows the last {LEADERBOARD_DAYS} days that are.
        </p>
      ) : null}
      {props.brands.length === 0 ? (
        <p>No brand has billable impressions in these days yet.</p>
      ) : (
        <DataTable
          label="Brand leaderboard"
          columns={[{ label: 'Rank', num: true }, 'Brand', { label: 'Billable impressions', num: true }]}
          captionClass="visually-hidden"
          caption={
            <>
              Top {LEADERBOARD_MAX_ROWS} brands by billable impressions, {first} to {last}
            </>
          }
        >
          {props.brands.map((b, i) => (
            <tr>
              <td class="num">{i + 1}</td>
              <td class="brand-name">{b.brand}</td>
              <td class="num">{count(b.impressions)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <p class="muted">
        At most {LEADERBOARD_MAX_ROWS} brands; equal counts are in alphabetical order. The same figures as JSON:{' '}
        <a href="/leaderboard.json">
          <code>/leaderboard.json</code>
        </a>
        .
      </p>
    </Page>
  )
}
