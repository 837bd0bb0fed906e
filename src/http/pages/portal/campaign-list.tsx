import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { count, usdBid, usdSpend, utc } from '../format.ts'
import type { CampaignSummarySchema } from '../../schemas/campaigns.ts'
import { DataTable } from '../data-table.tsx'
import { shownStateOf, StateBadge } from './campaign-state.tsx'

type Campaign = Static<typeof CampaignSummarySchema>

export function CampaignListPage(props: {
  csrf: string
  email: string
  campaigns: Campaign[]
  nextCursor: string | null
  /** True past the first page (a cursor was given). */
  paged: boolean
  notice: string | null
}) {
  const { campaigns } = props
  return (
    <Page title="Campaigns" area="portal" path="/portal/campaigns" session={{ csrf: props.csrf, who: props.email }} flash={props.notice}>
      <p class="actions">
        <a class="button" href="/portal/campaigns/new">
          New campaign
        </a>
      </p>
      {campaigns.length === 0 ? (
        props.paged ? (
          <p>
            No more campaigns. <a href="/portal/campaigns">Back to the newest</a>.
          </p>
        ) : (
          <div class="card">
            <p>You have no campaigns yet.</p>
            <p>
              <a href="/portal/campaigns/new">Create your first campaign</a>: an ad line, a bid and a number of blocks of 1,000 impressions.
            </p>
          </div>
        )
      ) : (
        <DataTable
          label="Your campaigns"
          columns={[
            'Name',
            'Status',
            { label: 'Bid (CPM)', num: true },
            { label: 'Served / bought', num: true },
            { label: 'Spend', num: true },
            'Created',
          ]}
          captionClass="muted"
          caption={`Newest first${props.paged ? ' (continued)' : ''}.`}
        >
          {campaigns.map((c) => (
            <tr>
              <td>
                <a href={`/portal/campaigns/${encodeURIComponent(c.campaign_id)}`}>{c.name}</a>
              </td>
              <td>
                <StateBadge shown={shownStateOf(c)} />
              </td>
              <td class="num">{usdBid(c.cpm_usd)}</td>
              <td class="num">
                {count(c.impressions_served)} / {count(c.impressions)}
              </td>
              <td class="num">{usdSpend(c.lifetime_spent_micros)}</td>
              <td>{utc(c.created_at)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {props.nextCursor !== null || props.paged ? (
        <nav class="pager" aria-label="Pages">
          {props.paged ? <a href="/portal/campaigns">Newest campaigns</a> : null}
          {props.nextCursor !== null ? <a href={`/portal/campaigns?cursor=${encodeURIComponent(props.nextCursor)}`}>Next page</a> : null}
        </nav>
      ) : null}
    </Page>
  )
}
