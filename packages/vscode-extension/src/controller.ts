/**
 * The extension's state machine, with no `vscode` import: when the status bar item shows an ad, how
 * long it was really seen, when a view is reported and when the next decision is asked for. VS Code
 * (extension.ts) and the tests drive it through ports: a clock with timers, the window's focus, a
 * display, and the service.
 *
 * - Shown: while an assistant is working (any number of overlapping `thinking()` holds) with
 *   `show: whileThinking`, whenever with `always`, never with `never`; and only with an offer in hand.
 * - Dwell accrues only while the ad is shown and the window is focused. At MIN_EXPOSURE_MS of dwell
 *   the view is queued once with the measured dwell and the next offer is asked for. An exposure
 *   interrupted (hidden or unfocused) for longer than MAX_GAP_MS ends and is reported with the dwell
 *   it had, as the terminal does (ad-client's rules.js); a shorter interruption only pauses it.
 * - One decision when thinking starts and no offer is ready, or prefetched when an exposure ends;
 *   never per keystroke or tick. After a failure the next try waits (1 s doubling to 30 s; 15 s after
 *   "nothing to show"), and no timer runs while nothing is shown: no polling while no assistant works.
 */
import { MAX_GAP_MS, MIN_EXPOSURE_MS, NO_FILL_PAUSE_MS, OFFER_TTL_MS, failureBackoffMs } from '@thinking-line/ad-client/rules'
import type { Decision } from '@thinking-line/ad-client/decision'
import type { Report } from '@thinking-line/ad-client/reports'

export type ShowSetting = 'whileThinking' | 'always' | 'never'

/** The time and the timers (VS Code: the machine's clock and setTimeout; tests: a fake). */
export interface Clock {
  now(): number
  /** Runs `fn` after `ms`; the function returned cancels it. */
  setTimer(fn: () => void, ms: number): () => void
}

/** What the status bar shows: one offer (with the topics its decision carried), or nothing. */
export interface Display {
  show(offer: Offer): void
  hide(): void
}

export type Fetched = { kind: 'ad'; decision: Decision; topics: readonly string[] } | { kind: 'none' } | { kind: 'failed' }

/** The service, as the controller needs it (extension.ts puts ad-client's calls behind it). */
export interface Service {
  /** One decision request (bounded in time; never throws). */
  fetchOffer(): Promise<Fetched>
  /** Queues a view report (kept until the service acknowledges it). */
  queue(report: Report): void
  /** Views queued and not acknowledged. */
  pending(): number
  /** One delivery pass of the queued views (never throws); failed: something is left to retry. */
  deliver(): Promise<{ failed: boolean }>
}

export interface Offer {
  decision: Decision
  topics: readonly string[]
  fetchedAt: number
}

interface Current extends Offer {
  /** Dwell accrued before `since`. */
  dwell: number
  /** When the running stretch of dwell began (null: not accruing). */
  since: number | null
  /** When the exposure was interrupted, once it had some dwell (null: running, or not started). */
  pausedAt: number | null
}

export interface Snapshot {
  show: ShowSetting
  thinking: number
  focused: boolean
  shown: string | null
  dwellMs: number
  fetching: boolean
  queued: number
}

export class Controller {
  private readonly holds = new Set<symbol>()
  private show: ShowSetting
  private focused: boolean
  private current: Current | null = null
  private displayed: string | null = null
  private fetching = false
  /** The next fetch may not start before this (a back-off). */
  private retryAt = 0
  private failures = 0
  /** One fetch is allowed while nothing is shown: the prefetch at the end of an exposure. */
  private prefetch = false
  private delivering = false
  private deliveryFailures = 0
  private deliverAt = 0
  private disposed = false
  private readonly timers = new Map<'exposure' | 'gap' | 'retry' | 'deliver', () => void>()

  constructor(
    private readonly clock: Clock,
    private readonly display: Display,
    private readonly service: Service,
    options: { show: ShowSetting; focused: boolean },
  ) {
    this.show = options.show
    this.focused = options.focused
  }

  /** Starts acting on the settings (with `show: always`, the first decision). */
  start(): void {
    this.update()
  }

  /** An assistant starts working; the function returned ends that (calling it again does nothing). */
  thinking(): () => void {
    const hold = Symbol('thinking')
    this.holds.add(hold)
    this.update()
    return () => {
      if (this.holds.delete(hold)) this.update()
    }
  }

  setShow(show: ShowSetting): void {
    this.show = show
    this.update()
  }

  setFocused(focused: boolean): void {
    this.focused = focused
    this.update()
  }

  /** The offer on screen (for the click), or null. */
  shownOffer(): Offer | null {
    return this.visible() ? this.current : null
  }

  snapshot(): Snapshot {
    return {
      show: this.show,
      thinking: this.holds.size,
      focused: this.focused,
      shown: this.displayed,
      dwellMs: this.current ? this.dwellAt(this.clock.now()) : 0,
      fetching: this.fetching,
      queued: this.service.pending(),
    }
  }

  /** The window closes: an exposure under way ends with the dwell it had; no timer is left. */
  dispose(): void {
    if (this.disposed) return
    const now = this.clock.now()
    if (this.current && this.dwellAt(now) > 0) this.endExposure(now)
    this.disposed = true
    for (const key of [...this.timers.keys()]) this.clear(key)
    this.display.hide()
  }

  private active(): boolean {
    return this.show === 'always' || (this.show === 'whileThinking' && this.holds.size > 0)
  }

  private visible(): boolean {
    return !this.disposed && this.active() && this.current !== null
  }

  private dwellAt(now: number): number {
    const c = this.current
    if (!c) return 0
    return c.dwell + (c.since === null ? 0 : Math.max(0, now - c.since))
  }

  /** Folds the running stretch into the dwell, or starts one, as the item's visibility and the focus say. */
  private settle(now: number): void {
    const c = this.current
    if (!c) return
    const accruing = this.visible() && this.focused
    if (c.since !== null && !accruing) {
      c.dwell += Math.max(0, now - c.since)
      c.since = null
      c.pausedAt = now
    } else if (c.since === null && accruing) {
      c.since = now
      c.pausedAt = null
    }
  }

  private endExposure(now: number): void {
    const c = this.current
    if (!c) return
    this.service.queue({ impression_id: c.decision.impression_id, dwell_ms: Math.round(this.dwellAt(now)), queued_at: now })
    this.current = null
    this.prefetch = true
    this.deliverAt = 0
  }

  /** Brings everything in line with the state after any event: dwell, the exposure's end, the item, the timers, fetches. */
  private update(): void {
    if (this.disposed) return
    const now = this.clock.now()
    this.settle(now)
    const c = this.current
    if (c) {
      if (this.dwellAt(now) >= MIN_EXPOSURE_MS) this.endExposure(now)
      else if (c.pausedAt !== null && c.dwell > 0 && now - c.pausedAt > MAX_GAP_MS) this.endExposure(now)
      else if (c.dwell === 0 && c.since === null && now - c.fetchedAt > OFFER_TTL_MS) this.current = null
    }
    this.render()
    this.schedule(now)
    this.maybeFetch(now)
    this.maybeDeliver(now)
  }

  private render(): void {
    const offer = this.shownOffer()
    const id = offer ? offer.decision.impression_id : null
    if (id === this.displayed) return
    this.displayed = id
    if (offer) this.display.show(offer)
    else this.display.hide()
  }

  private schedule(now: number): void {
    const c = this.current
    this.clear('exposure')
    this.clear('gap')
    if (c && c.since !== null) this.set('exposure', MIN_EXPOSURE_MS - this.dwellAt(now))
    else if (c && c.pausedAt !== null && c.dwell > 0) this.set('gap', c.pausedAt + MAX_GAP_MS + 1 - now)
  }

  private maybeFetch(now: number): void {
    this.clear('retry')
    if (this.current || this.fetching || this.show === 'never') return
    if (!this.active() && !this.prefetch) return
    if (now < this.retryAt) {
      // Only while an ad is wanted on screen: a prefetch that failed waits for the next thinking.
      if (this.active()) this.set('retry', this.retryAt - now)
      return
    }
    this.prefetch = false
    this.fetching = true
    void this.service.fetchOffer().then((fetched) => {
      this.fetching = false
      if (this.disposed) return
      const at = this.clock.now()
      if (fetched.kind === 'ad') {
        this.failures = 0
        this.retryAt = 0
        this.current = { decision: fetched.decision, topics: fetched.topics, fetchedAt: at, dwell: 0, since: null, pausedAt: null }
      } else if (fetched.kind === 'none') {
        this.failures = 0
        this.retryAt = at + NO_FILL_PAUSE_MS
      } else {
        this.failures++
        this.retryAt = at + failureBackoffMs(this.failures)
      }
      this.update()
    })
  }

  private maybeDeliver(now: number): void {
    if (this.delivering || this.service.pending() === 0 || now < this.deliverAt) {
      if (!this.delivering && this.service.pending() > 0 && now < this.deliverAt && this.active() && !this.timers.has('deliver')) this.set('deliver', this.deliverAt - now)
      return
    }
    this.clear('deliver')
    this.delivering = true
    void this.service.deliver().then(({ failed }) => {
      this.delivering = false
      if (this.disposed) return
      this.deliveryFailures = failed ? this.deliveryFailures + 1 : 0
      this.deliverAt = failed ? this.clock.now() + failureBackoffMs(this.deliveryFailures) : 0
      this.update()
    })
  }

  private set(key: 'exposure' | 'gap' | 'retry' | 'deliver', ms: number): void {
    this.timers.set(
      key,
      this.clock.setTimer(() => {
        this.timers.delete(key)
        this.update()
      }, Math.max(0, ms)),
    )
  }

  private clear(key: 'exposure' | 'gap' | 'retry' | 'deliver'): void {
    const cancel = this.timers.get(key)
    if (!cancel) return
    cancel()
    this.timers.delete(key)
  }
}
