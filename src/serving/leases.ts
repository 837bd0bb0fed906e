import { randomBytes } from 'node:crypto'
import { impressionDebitMicros } from '../domain/money.ts'
import { endsBlock, LEASE_IDLE_MS, leaseWant } from '../domain/leases.ts'
import type { Db } from '../store/db.ts'
import type { LeaseTake } from '../store/ledger.ts'
import { grantLeases, heldLeases, settleLeases, type LeaseCampaign, type LeaseRow, type LeaseRequest } from '../store/leases.ts'

/** How a campaign's billed rate here is measured (real time), for the room to ask for. */
const RATE_WINDOW_MS = 1_000

/** Numbers a batch bills on one campaign: the leases' rows to move and each impression's debit, in order. */
export interface Taken {
  takes: LeaseTake[]
  debits: number[]
  /** The impression numbers, in order (one per debit). */
  numbers: number[]
  /** A number taken ends a block or the campaign: settle before the batch is answered. */
  endsBlock: boolean
  /** The campaign's last number was taken: every holder's use of it is settled. */
  endsCampaign: boolean
}

/**
 * One instance's impression budget leases (docs/decisions/0096-a-lease-is-a-range-of-a-campaigns-impression-numbers.md), as it last saw them in the
 * store: the room it may bill without asking anyone, per campaign. Everything that uses or changes
 * them runs one at a time (`exclusive`): batches of views, settlements, top-ups. The store is always
 * passed in (a test may hold the embedded store's only connection).
 */
export class LeaseBook {
  /** This instance in `impression_leases.holder`: random per process start. */
  readonly holder: string
  #leases = new Map<string, LeaseRow[]>()
  #campaigns = new Map<string, LeaseCampaign>()
  readonly #rates = new Map<string, { count: number; since: number; perSecond: number }>()
  /** When (real time) this instance last billed each campaign. */
  readonly #billedAt = new Map<string, number>()
  #lock: Promise<unknown> = Promise.resolve()

  constructor(holder: string = randomBytes(8).toString('hex')) {
    this.holder = holder
  }

  /** Runs `fn` once everything queued before it finished. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(fn, fn)
    this.#lock = run.catch(() => {})
    return run
  }

  /** The campaign as a grant last read it (price, cancellation, inventory), or undefined. */
  campaign(campaignId: string): LeaseCampaign | undefined {
    return this.#campaigns.get(campaignId)
  }

  /** Numbers this instance may still bill on the campaign. */
  room(campaignId: string): number {
    let room = 0
    for (const l of this.#leases.get(campaignId) ?? []) room += l.size - l.used
    return room
  }

  #want(campaignId: string): number {
    return leaseWant(this.#rates.get(campaignId)?.perSecond ?? 0)
  }

  /** Grants, in one transaction, room for `demand` (billable views per campaign) where this instance lacks it. */
  async ensure(db: Db, demand: ReadonlyMap<string, number>, now: Date): Promise<void> {
    const requests: LeaseRequest[] = []
    for (const [campaignId, need] of demand) {
      if (this.#campaigns.has(campaignId) && this.room(campaignId) >= need) continue
      requests.push({ campaignId, need, want: Math.max(this.#want(campaignId), need) })
    }
    await this.#grant(db, requests, now)
  }

  /** Grants ahead of need: campaigns billed here lately whose room fell under half of what they want. */
  async topUp(db: Db, now: Date): Promise<void> {
    const requests: LeaseRequest[] = []
    for (const campaignId of this.#rates.keys()) {
      if (performance.now() - (this.#billedAt.get(campaignId) ?? -Infinity) >= LEASE_IDLE_MS) {
        this.#rates.delete(campaignId)
        continue
      }
      const want = this.#want(campaignId)
      if (this.room(campaignId) * 2 < want) requests.push({ campaignId, need: 0, want })
    }
    await this.#grant(db, requests, now)
  }

  async #grant(db: Db, requests: LeaseRequest[], now: Date): Promise<void> {
    if (requests.length === 0) return
    const granted = await grantLeases(db, this.holder, requests, now)
    for (const c of granted.campaigns) this.#campaigns.set(c.campaignId, c)
    for (const r of requests) this.#leases.delete(r.campaignId)
    this.#hold(granted.leases)
  }

  #hold(leases: readonly LeaseRow[]): void {
    for (const l of leases) {
      const list = this.#leases.get(l.campaignId)
      if (list) list.push(l)
      else this.#leases.set(l.campaignId, [l])
    }
  }

  /**
   * The next `count` numbers of the campaign, across its leases in order, priced at their lease's
   * CPM; not consumed until `commit`. The caller judged at most `room` views billable.
   */
  take(campaignId: string, count: number): Taken {
    const c = this.#campaigns.get(campaignId)
    const taken: Taken = { takes: [], debits: [], numbers: [], endsBlock: false, endsCampaign: false }
    let left = count
    for (const l of this.#leases.get(campaignId) ?? []) {
      if (left === 0) break
      const n = Math.min(left, l.size - l.used)
      if (n <= 0) continue
      taken.takes.push({ leaseId: l.leaseId, expectedUsed: l.used, n })
      for (let i = 0; i < n; i++) {
        const number = l.firstSeq + l.used + i
        taken.numbers.push(number)
        taken.debits.push(impressionDebitMicros(l.cpmMicros, number))
        if (c && endsBlock(number, c.blockSize, c.impressions)) taken.endsBlock = true
        if (c && number === c.impressions) taken.endsCampaign = true
      }
      left -= n
    }
    if (left > 0) throw new Error(`lease room for ${count} impressions of ${campaignId} is missing ${left}`)
    return taken
  }

  /** A batch committed what it took. */
  commit(campaignId: string, taken: Taken): void {
    const byId = new Map((this.#leases.get(campaignId) ?? []).map((l) => [l.leaseId, l]))
    for (const t of taken.takes) {
      const l = byId.get(t.leaseId)
      if (l) l.used += t.n
    }
    const nowMs = performance.now()
    this.#billedAt.set(campaignId, nowMs)
    const rate = this.#rates.get(campaignId) ?? { count: 0, since: nowMs, perSecond: 0 }
    rate.count += taken.debits.length
    if (nowMs - rate.since >= RATE_WINDOW_MS) {
      rate.perSecond = (rate.count * 1000) / (nowMs - rate.since)
      rate.count = 0
      rate.since = nowMs
    }
    this.#rates.set(campaignId, rate)
  }

  /** After a failed lease check (revoked, shrunk, taken over): what the store says this instance holds; facts are read again. */
  async reload(db: Db): Promise<void> {
    const held = await heldLeases(db, this.holder)
    this.#leases = new Map()
    this.#campaigns = new Map()
    this.#hold(held)
  }

  /** Campaigns this instance holds room on and has not billed for LEASE_IDLE_MS. */
  #idle(): string[] {
    const nowMs = performance.now()
    const idle: string[] = []
    for (const campaignId of this.#leases.keys()) {
      const at = this.#billedAt.get(campaignId)
      if (at === undefined || nowMs - at >= LEASE_IDLE_MS) {
        idle.push(campaignId)
        this.#billedAt.delete(campaignId)
      }
    }
    return idle
  }

  /**
   * Settles what this instance used (and any expired lease), renews what it keeps and frees its room
   * on campaigns it has not billed for LEASE_IDLE_MS; `release`: frees everything (shutdown).
   */
  async settle(db: Db, now: Date, release = false, finished: readonly string[] = []): Promise<void> {
    const held = await settleLeases(db, this.holder, now, release, this.#idle(), finished)
    this.#leases = new Map()
    this.#hold(held)
    if (release) this.#campaigns = new Map()
  }
}
