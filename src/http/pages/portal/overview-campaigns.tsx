import type { Static } from 'typebox'
import { count, utc } from '../format.ts'
import type { CampaignSummarySchema } from '../../schemas/campaigns.ts'
import { DataTable } from '../data-table.tsx'
import { REWRITE_ANCHOR, shownStateOf } from './campaign-state.tsx'
import { REVIEW_TIME } from '../../../domain/campaign-shown-state.ts'

type Campaign = Static<typeof CampaignSummarySchema>

const href = (c: Campaign) => `/portal/campaigns/${encodeURIComponent(c.campaign_id)}`

/**
 * The overview's campaigns under the state a person sees (campaign-state.tsx;
 * issue 36): those whose line was rejected first ("Needs your attention", with
 * the way to rewrite it), then those whose line is in review, then the active
 * ones. A campaign held by its line is never counted as active.
 */
export function CampaignGroups(props: { campaigns: Campaign[] }) {
  const shown = props.campaigns.map((c) => ({ c, s: shownStateOf(c) }))
  const rejected = shown.filter((x) => x.s.state === 'rejected').map((x) => x.c)
  const inReview = shown.filter((x) => x.s.state === 'in_review').map((x) => x.c)
  const active = shown.filter((x) => x.s.state === 'active').map((x) => x.c)
  return (
    <>
      {rejected.length > 0 ? (
        <section aria-labelledby="attention-h">
          <h2 id="attention-h">Needs your attention</h2>
          <p>The ad line of these campaigns was rejected in review, so they do not serve. Rewrite the line to have it screened again.</p>
          <DataTable label="Campaigns whose ad line was rejected" columns={['Name', 'Next step']}>
            {rejected.map((c) => (
              <tr>
                <td>
                  <a href={href(c)}>{c.name}</a>
                </td>
                <td>
                  <a href={`${href(c)}#${REWRITE_ANCHOR}`}>Rewrite the ad line</a>
                </td>
              </tr>
            ))}
          </DataTable>
        </section>
      ) : null}
      {inReview.length > 0 ? (
        <section aria-labelledby="review-h">
          <h2 id="review-h">In review</h2>
          <p>
            The ad line of these campaigns waits for review ({REVIEW_TIME}); they serve once it is approved, and we email you the decision.
          </p>
          <DataTable label="Campaigns whose ad line is in review" columns={['Name', 'Created', { label: 'Bought', num: true }]}>
            {inReview.map((c) => (
              <tr>
                <td>
                  <a href={href(c)}>{c.name}</a>
                </td>
                <td>{utc(c.created_at)}</td>
                <td class="num">{count(c.impressions)}</td>
              </tr>
            ))}
          </DataTable>
        </section>
      ) : null}
      <h2 id="active-h">Active campaigns</h2>
      {active.length === 0 ? (
        <p>
          No active campaign. <a href="/portal/campaigns">See all campaigns</a>.
        </p>
      ) : (
        <DataTable label="Active campaigns" columns={['Name', { label: 'Delivered', num: true }, { label: 'Bought', num: true }]}>
          {active.map((c) => (
            <tr>
              <td>
                <a href={href(c)}>{c.name}</a>
              </td>
              <td class="num">{count(c.impressions_served)}</td>
              <td class="num">{count(c.impressions)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  )
}
