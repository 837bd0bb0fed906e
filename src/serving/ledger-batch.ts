import { judgeViews, viewerSlot, type CampaignInventory, type ViewOutcome, type ViewToJudge } from '../domain/delivery.ts'
import { judgeClicks, type ClickToJudge } from '../domain/clicks.ts'
import type { CampaignKind } from '../domain/campaign-order.ts'
import type { Db } from '../store/db.ts'
import { boundKeysOf, SourceBudget, type SourceLimits, type SourceUse } from '../domain/invalid-traffic.ts'
import type { Source } from '../domain/traffic-source.ts'
import { EventColumns, isRace, writeBatch } from '../store/ledger.ts'
import { readClickState, readLedgerState, readSourceUse } from '../store/ledger-state.ts'
import { CampaignKinds } from './campaign-kinds.ts'
import { eventRow, type BatchResult, type ClickClaim, type ClickResult, type KnownState, type LedgerBatch } from './ledger-claims.ts'
import type { LeaseBook } from './leases.ts'
import type { Offer } from './offer-token.ts'
import type { SourceTally } from './source-tally.ts'

/**
 * Committing one group-commit batch of the ledger: judged, written with one statement that
 * re-checks the judgment, judged again from the store when it moved (commitLedgerBatch). What a
 * batch carries and answers is ledger-claims.ts's.
 */

const MAX_ATTEMPTS = 10

/**
 * Commits one group of ledger events (group commit). Views are judged (`judgeViews`) on what this
 * instance knows or one read of the store (`readLedgerState`: repeats, each viewer's last billable
 * instant), and on its impression budget leases for inventory, price and cancellation: a campaign
 * lacking room for the batch's billable views is granted more first (`LeaseBook#ensure`, one
 * transaction for all of them). Each billable impression bills the next number of a lease, priced
 * here (`impressionDebitMicros(cpm, n)`), and one statement writes the events, the leases' `used`
 * and the viewers' last billable instants (`store/ledger.ts#writeBatch`).
 *
 * Click campaigns (docs/decisions/0104-a-billable-click.md, docs/serving.md (decision 0106)): their views are judged
 * by the same rules but bill nothing and take no lease number (a qualified one is an `impression`
 * row with debit 0); their clicks are judged (`judgeClicks`, on one read of the store:
 * `readClickState`) and a billable click bills the next number of a lease exactly like a billable
 * impression of an impression campaign. A click on an impression campaign is recorded, never billed.
 *
 * No lock is held between judging and writing: the statement re-checks what the judgment relied on
 * and aborts as a whole when the store moved (a repeat, a viewer billed elsewhere, a lease revoked
 * or taken over), after which the leases are read again and the batch judged again from the store.
 * A batch that bills the last number of a block or campaign settles the leases before it resolves,
 * so block statuses and completion follow at once.
 *
 * `kinds` is shared by every batch of an instance (the writer's): a fresh one reads the batch's
 * campaigns' kinds from the store first.
 */
export async function commitLedgerBatch(
  db: Db,
  now: Date,
  batch: LedgerBatch,
  book: LeaseBook,
  known?: KnownState,
  kinds: CampaignKinds = new CampaignKinds(),
): Promise<BatchResult> {
  const kindOf = batch.clicks.length + batch.views.length === 0 ? new Map<string, CampaignKind>() : await kinds.of(db, campaignsOf(batch))
  if (batch.views.length === 0 && !batch.clicks.some((k) => kindOf.get(k.offer.campaignId) === 'click')) {
    const rows = new EventColumns()
    for (const k of batch.clicks) rows.push(eventRow('click', k.impressionId, k.offer, now), 0, null, null)
    await writeBatch(db, now, rows, book.holder, [], 0, 'skip', NO_LIMITS)
    const clicks = batch.clicks.map((): ClickResult => ({ billable: false, reason: 'impression_campaign' }))
    return { views: [], clicks, billedSlots: [], units: [], billed: new Map(), settled: false, retries: 0 }
  }
  return book.exclusive(async () => {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await judgeAndWrite(db, now, batch, book, kindOf, known, attempt > 1 || known === undefined)
        result.retries = attempt - 1
        return result
      } catch (err) {
        if (!isRace(err) || attempt >= MAX_ATTEMPTS) throw err
        await book.reload(db)
      }
    }
  })
}

function* campaignsOf(batch: LedgerBatch): Iterable<string> {
  for (const v of batch.views) yield v.offer.campaignId
  for (const k of batch.clicks) yield k.offer.campaignId
}

/** Views bill nothing on a click campaign: judged against unbounded inventory, never cancelled. */
const CLICK_CAMPAIGN_VIEWS: CampaignInventory = { impressions: Infinity, billed: 0, cancelledAtMs: null }

async function judgeAndWrite(
  db: Db,
  now: Date,
  batch: LedgerBatch,
  book: LeaseBook,
  kindOf: ReadonlyMap<string, CampaignKind>,
  known: KnownState | undefined,
  fromStore: boolean,
): Promise<BatchResult> {
  const nowMs = now.getTime()
  const isClickCampaign = (campaignId: string) => kindOf.get(campaignId) === 'click'
  const toJudge = batch.views.map(
    (v): ViewToJudge => ({
      impressionId: v.impressionId,
      campaignId: v.offer.campaignId,
      viewerKey: v.offer.viewerKey,
      surface: v.offer.surface,
      source: v.offer.source,
      offeredAtMs: v.offer.offeredAtMs,
      reason: v.reason,
      nonce: v.token?.nonce ?? null,
    }),
  )
  // Clicks of impression campaigns are only recorded; the others are judged.
  const judged = batch.clicks.filter((k) => isClickCampaign(k.offer.campaignId))
  const clicksToJudge = judged.map(
    (k): ClickToJudge => ({
      impressionId: k.impressionId,
      campaignId: k.offer.campaignId,
      viewerKey: k.offer.viewerKey,
      source: k.offer.source,
      blocked: k.blocked,
      offeredAtMs: k.offer.offeredAtMs,
    }),
  )
  // Repeats are not known here: the unique index finds them, and a repeat aborts the write.
  const seen = known && !fromStore ? { recorded: new Set<string>(), lastBillableMs: known.lastBillableMs, spentNonces: new Set<string>() } : await readLedgerState(db, toJudge)
  // The invalid-traffic bounds of the newest claim (an operator's change applies from the next batch).
  const limits = [...batch.views, ...batch.clicks].at(-1)?.limits ?? NO_LIMITS
  const sourceUse = await sourcesOf(db, [...toJudge, ...clicksToJudge], nowMs, known?.sources, fromStore)
  const clickSeen = clicksToJudge.length > 0 ? await readClickState(db, clicksToJudge, nowMs) : { clicked: new Set<string>(), billedDays: new Set<string>() }
  // What the batch would bill with unbounded inventory: the room its leases need.
  const unbounded = new Map<string, CampaignInventory>()
  for (const v of [...toJudge, ...clicksToJudge]) {
    if (!unbounded.has(v.campaignId)) unbounded.set(v.campaignId, { impressions: Infinity, billed: 0, cancelledAtMs: book.campaign(v.campaignId)?.cancelledAtMs ?? null })
  }
  const viewCampaigns = (of: ReadonlyMap<string, CampaignInventory>) =>
    new Map([...of].map(([id, c]) => [id, isClickCampaign(id) ? CLICK_CAMPAIGN_VIEWS : c]))
  const demand = new Map<string, number>()
  const count = (into: Map<string, number>, id: string) => into.set(id, (into.get(id) ?? 0) + 1)
  const demandBudget = new SourceBudget(limits, sourceUse)
  judgeViews(toJudge, { ...seen, campaigns: viewCampaigns(unbounded) }, nowMs, demandBudget).forEach((o, i) => {
    if (o.billable && !isClickCampaign(toJudge[i]!.campaignId)) count(demand, toJudge[i]!.campaignId)
  })
  judgeClicks(clicksToJudge, { ...clickSeen, campaigns: unbounded }, nowMs, demandBudget).forEach((o, i) => {
    if (o.billable) count(demand, clicksToJudge[i]!.campaignId)
  })
  await book.ensure(db, demand, now)
  const campaigns = new Map<string, CampaignInventory>()
  for (const id of unbounded.keys()) {
    const c = book.campaign(id)
    if (c) campaigns.set(id, { impressions: book.room(id), billed: 0, cancelledAtMs: c.cancelledAtMs })
  }
  // Views first, then clicks, spend one budget of the sources' bounds.
  const budget = new SourceBudget(limits, sourceUse)
  const outcomes = judgeViews(toJudge, { ...seen, campaigns: viewCampaigns(new Map([...unbounded.keys()].map((id) => [id, campaigns.get(id) ?? NO_ROOM]))) }, nowMs, budget)
  const clickOutcomes = judgeClicks(clicksToJudge, { ...clickSeen, campaigns }, nowMs, budget)

  const billedBy = new Map<string, number>()
  outcomes.forEach((o, i) => {
    if (o.billable && !isClickCampaign(toJudge[i]!.campaignId)) count(billedBy, toJudge[i]!.campaignId)
  })
  clickOutcomes.forEach((o, i) => {
    if (o.billable) count(billedBy, clicksToJudge[i]!.campaignId)
  })
  const taken = new Map([...billedBy].map(([id, n]) => [id, book.take(id, n)]))
  const next = new Map([...taken.keys()].map((id) => [id, 0]))
  const nextDebit = (campaignId: string) => {
    const k = next.get(campaignId)!
    next.set(campaignId, k + 1)
    return taken.get(campaignId)!.debits[k]!
  }

  const rows = new EventColumns()
  const clickResults = new Map<ClickClaim, ClickResult>()
  judged.forEach((k, i) => clickResults.set(k, clickOutcomes[i]!))
  let billableClicks = 0
  for (const k of batch.clicks) {
    const o = clickResults.get(k)
    if (o?.billable === false && o.reason === 'repeat') continue
    const row = eventRow('click', k.impressionId, k.offer, now)
    if (!o) rows.push(row, 0, null, null, false)
    else if (o.billable) {
      billableClicks++
      rows.push(row, nextDebit(k.offer.campaignId), null, null, true)
    } else rows.push(row, 0, null, o.reason, false)
  }
  let billable = 0
  batch.views.forEach((v, i) => {
    const o = outcomes[i]!
    // A repeat is recorded apart (ServingEngine#view), once per impression, off this batch.
    if (!o.billable && o.reason === 'repeat') return
    const row = eventRow(o.billable ? 'impression' : 'view', v.impressionId, v.offer, now)
    let debit = 0
    if (o.billable) {
      billable++
      // A click campaign's qualified view: counted as a billable impression, with no debit.
      if (!isClickCampaign(v.offer.campaignId)) debit = nextDebit(v.offer.campaignId)
    }
    // An attested billable impression keeps its token (ledger-export-v4); its nonce is claimed with it.
    rows.push(row, debit, v.dwellMs, o.billable ? null : o.reason, undefined, o.billable && row.event_type === 'impression' ? (v.token?.bytes ?? null) : null)
  })

  const clickCampaignIds = [...new Set([...unbounded.keys()].filter(isClickCampaign))]
  const written = await writeBatch(
    db,
    now,
    rows,
    book.holder,
    [...taken.values()].flatMap((t) => t.takes),
    billable,
    // Clicks repeat often (a double click): a batch carrying them keeps dropping repeats quietly.
    !fromStore && batch.clicks.length === 0 ? 'fail' : 'skip',
    limits,
    clickCampaignIds.length > 0 ? { campaignIds: clickCampaignIds, billableClicks } : null,
  )
  for (const [id, t] of taken) book.commit(id, t)
  // Committed: a failed settlement must not fail (and retry) the batch; the settle timer catches up.
  const finished = [...taken].filter(([, t]) => t.endsCampaign).map(([id]) => id)
  const settled = [...taken.values()].some((t) => t.endsBlock) && (await book.settle(db, now, false, finished).then(() => true, () => false))

  const lost = new Set(written.lost ?? [])
  const views = outcomes.map((o, i): ViewOutcome => (!(!o.billable && o.reason === 'repeat') && lost.has(batch.views[i]!.impressionId) ? { billable: false, reason: 'repeat' } : o))
  const billedSlots = batch.views.flatMap((v, i) => (views[i]!.billable ? [viewerSlot(v.offer.viewerKey, v.offer.surface)] : []))
  const clicks = batch.clicks.map((k): ClickResult => clickResults.get(k) ?? { billable: false, reason: 'impression_campaign' })
  const units: BatchResult['units'] = []
  const unit = (offer: Offer, billable: boolean) => {
    if (billable && offer.source !== null) units.push({ source: offer.source, viewerKey: offer.viewerKey })
  }
  // An attested view takes nothing of its source's bounds (domain/delivery.ts#judgeViews).
  batch.views.forEach((v, i) => unit(v.offer, views[i]!.billable && !v.token))
  batch.clicks.forEach((k, i) => unit(k.offer, clicks[i]!.billable))
  return { views, clicks, billedSlots, units, billed: billedBy, settled, retries: 0 }
}

/** A batch with nothing billable to bound (offers and clicks of impression campaigns). */
const NO_LIMITS: SourceLimits = {
  maxViewersPerDay: 2 ** 31 - 1,
  maxBillablePerHour: 2 ** 31 - 1,
  maxViewersPer48PerDay: 2 ** 31 - 1,
  maxBillablePer48PerHour: 2 ** 31 - 1,
}

/**
 * The use of the bounds of the sources of a batch's views and clicks, and of their /48s (keyed by
 * `boundKeysOf`): what this instance knows, or (for a batch judged from the store) the store's
 * counts, which the instance then knows too.
 */
async function sourcesOf(
  db: Db,
  events: readonly { source: Source | null; viewerKey: string }[],
  nowMs: number,
  tally: SourceTally | undefined,
  fromStore: boolean,
): Promise<ReadonlyMap<string, SourceUse>> {
  const pairs = events.flatMap((e) => (e.source === null ? [] : boundKeysOf(e.source).map((key) => ({ source: key, viewerKey: e.viewerKey }))))
  if (!fromStore && tally) return tally.snapshot(new Set(pairs.map((p) => p.source)), nowMs)
  const read = await readSourceUse(db, pairs, nowMs)
  tally?.learn(read, nowMs)
  return read
}

/** A campaign this instance could get no lease on: nothing left to bill. */
const NO_ROOM: CampaignInventory = { impressions: 0, billed: 0, cancelledAtMs: null }
