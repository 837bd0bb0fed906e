import { shownCampaignState, type ShownCampaignState, type ShownState } from '../../../domain/campaign-shown-state.ts'
import type { CampaignStatus } from '../../../domain/campaign-state.ts'
import type { ModerationStatus } from '../../../domain/campaign-order.ts'
import { REWRITE_ANCHOR } from '../../../domain/moderation.ts'

/**
 * The state a person sees for a campaign (domain/campaign-shown-state.ts) on
 * the portal's pages: the badge of the campaign page, the list and the
 * overview, and the campaign page's banner saying what is true and what to
 * do next. The API's `status` is untouched; this is presentation.
 */

export { REWRITE_ANCHOR }

/** The badge's colour for each state (the word is always there; the colour repeats it). */
const TONE: Record<ShownState, string> = {
  rejected: 'bad',
  in_review: 'warn',
  active: 'ok',
  paused: 'warn',
  completed: '',
  cancelled: '',
}

/** The shown state of a campaign as the API presents it (a summary's `moderation_status`, a detail's creative for the reason). */
export function shownStateOf(c: {
  status: CampaignStatus
  moderation_status: ModerationStatus | null
  creatives?: { moderation_reason: string | null }[]
}): ShownCampaignState {
  return shownCampaignState(c.status, c.moderation_status, c.creatives?.[0]?.moderation_reason ?? null)
}

export function StateBadge(props: { shown: ShownCampaignState }) {
  const tone = TONE[props.shown.state]
  return <span class={tone ? `badge ${tone}` : 'badge'}>{props.shown.label}</span>
}

/**
 * The campaign page's banner: what is true and the next step, with the way to
 * take it on the same page (the rewrite form) or the next page. None while the
 * campaign simply serves.
 */
export function StateBanner(props: { shown: ShownCampaignState }) {
  const s = props.shown
  if (s.state === 'active') return null
  const tone = TONE[s.state]
  return (
    <section class={`state-banner${tone ? ` ${tone}` : ''}`} aria-labelledby="state-banner-h">
      <h2 id="state-banner-h">{s.label}</h2>
      <p>{s.headline}</p>
      {s.reason !== null ? (
        <p>
          <strong>Reason:</strong> {s.reason}
        </p>
      ) : null}
      {s.next !== '' ? <p>{s.next}</p> : null}
      {s.nextStep === 'rewrite_line' ? (
        <p>
          <a class="button" href={`#${REWRITE_ANCHOR}`}>
            Rewrite the ad line
          </a>
        </p>
      ) : null}
      {s.nextStep === 'new_campaign' ? (
        <p>
          <a href="/portal/campaigns/new">Create a new campaign</a>
        </p>
      ) : null}
    </section>
  )
}
