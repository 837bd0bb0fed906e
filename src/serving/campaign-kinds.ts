import type { CampaignKind } from '../domain/campaign-order.ts'
import type { Db } from '../store/db.ts'
import { readCampaignKinds } from '../store/serving.ts'

/**
 * What each campaign buys (impressions or clicks), as this instance has learnt it: from the auction
 * index's reloads, and from the store for a campaign it never loaded (a view of an offer another
 * instance made for a campaign that has since stopped serving here). A campaign's kind never changes
 * after creation, so what is learnt stays true: a batch looks a kind up in a Map, without a read.
 */
export class CampaignKinds {
  readonly #kinds = new Map<string, CampaignKind>()

  learn(campaigns: Iterable<{ campaignId: string; kind: CampaignKind }>): void {
    for (const c of campaigns) this.#kinds.set(c.campaignId, c.kind)
  }

  /** The kinds of `campaignIds`, reading the ones not known yet in one query; an unknown campaign is absent. */
  async of(db: Db, campaignIds: Iterable<string>): Promise<ReadonlyMap<string, CampaignKind>> {
    let missing: string[] | null = null
    for (const id of campaignIds) if (!this.#kinds.has(id)) (missing ??= []).push(id)
    if (missing) for (const [id, kind] of await readCampaignKinds(db, missing)) this.#kinds.set(id, kind)
    return this.#kinds
  }
}
