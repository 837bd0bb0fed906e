import type { Static } from 'typebox'
import { count, usdBid, usdSpend, utc } from '../format.ts'
import type { QuoteSchema } from '../../schemas/quote.ts'

type Quote = Static<typeof QuoteSchema>

/** What the create form shows about the bid being typed: the quote (with the order's total and its cap), or why there is none. */
export type QuoteView =
  | { quote: Quote; ownImpressionsAhead: number; orderTotalMicros: number; bidUsd: number; atFloor: boolean; maxTotalUsd: number }
  | { problem: string }

/** Where the live quote fetches its fragment from (routes/portal/campaigns.ts; assets/site.js reads it off the region). */
export const QUOTE_FRAGMENT_PATH = '/portal/campaigns/new/quote'

/**
 * The quote in words (GET /v1/auction/quote's answer, the same service): the
 * rank, the impressions queued ahead, the clearing price level, and the
 * estimated start and completion, with what they are based on. Also the body
 * of the fragment the create form's script swaps in as the bid changes.
 */
export function AuctionQuote(props: { view: QuoteView }) {
  const { view } = props
  if ('problem' in view) return <p>{view.problem}</p>
  const q = view.quote
  const at = view.atFloor ? `At the floor bid of ${usdBid(view.bidUsd)}` : `At ${usdBid(view.bidUsd)}`
  const unit = q.based_on.kind === 'click' ? 'clicks' : 'impressions'
  const own = view.ownImpressionsAhead
  return (
    <>
      <p class="order-total">
        Order total: <strong>{usdSpend(view.orderTotalMicros)}</strong> for {count(q.based_on.impressions)} {unit} at {usdBid(view.bidUsd)} per 1,000. It is the
        most this order can bill (you pay only for what is delivered); one order may total at most {usdBid(view.maxTotalUsd)}.
      </p>
      <p>
        {at}, your campaign would be <strong>#{count(q.rank)}</strong> in the auction for this traffic
        {q.rank === 1 ? ' (next to serve)' : ''}, with <strong>{count(q.impressions_ahead)}</strong> impressions queued ahead of it
        {own === 0 ? '.' : own === q.impressions_ahead ? ': all of them your own campaigns.' : `, ${count(own)} of them your own campaigns.`}
      </p>
      <p>
        {q.clearing_cpm_usd === null
          ? 'No bid has won this traffic in the last hour.'
          : `Bids winning this traffic lately start at about ${usdBid(q.clearing_cpm_usd)} per 1,000 impressions.`}
      </p>
      <p>
        {q.estimated_start_at === null || q.estimated_completion_at === null
          ? 'There has been too little recent traffic to estimate when it would serve.'
          : `At the recent fill rate it would start serving around ${utc(q.estimated_start_at)} and deliver ${count(q.based_on.impressions)} ${q.based_on.kind === 'click' ? 'clicks' : 'impressions'} by about ${utc(q.estimated_completion_at)}.`}
      </p>
      {q.based_on.topics === null ? null : (
        <p>
          {q.based_on.topic_share === null
            ? 'No decisions were counted in the last hour, so the share carrying your topics is not known yet.'
            : `About ${topicSharePercent(q.based_on.topic_share)} of the last hour's decisions carried one of your ${count(q.based_on.topics.length)} ${q.based_on.topics.length === 1 ? 'topic' : 'topics'}; the estimate above counts only that share.`}
        </p>
      )}
      <p class="hint">
        Based on {count(q.based_on.billable_impressions)} billable impressions on this traffic from {utc(q.based_on.window_start)} to {utc(q.based_on.window_end)}.
        An estimate, not a promise: other bids come and go, and pacing is not counted.
      </p>
    </>
  )
}

/**
 * The create form's quote region: a polite live region (so a screen reader
 * hears the new place once typing pauses), rendered with the page for the
 * values shown and refreshed by assets/site.js from QUOTE_FRAGMENT_PATH.
 * Without JavaScript, the form's "Show my place in the auction" button
 * renders the page again with a fresh quote.
 */
export function AuctionQuoteRegion(props: { view: QuoteView }) {
  return (
    <section class="quote" aria-labelledby="quote-heading">
      <h2 id="quote-heading">Your place in the auction</h2>
      <div id="auction-quote" aria-live="polite" data-quote-url={QUOTE_FRAGMENT_PATH}>
        <AuctionQuote view={props.view} />
      </div>
    </section>
  )
}

/** A share of decisions as a person reads it: whole percent, or "under 1 %" when some but few. */
function topicSharePercent(share: number): string {
  if (share > 0 && share < 0.01) return 'under 1 %'
  return `${Math.round(share * 100)} %`
}
