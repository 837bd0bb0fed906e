/**
 * The labelled traffic families of the review simulation (docs/simulator.md, "Review mode";
 * docs/invalid-traffic.md, "How well the review works"). Every agent is one viewer id behind one
 * address; each acts at service times the engine (engine.ts) wakes it at, through the real serving
 * endpoints, and says when it next wants to act.
 *
 * The honest model follows the real clients (packages/status-line: exposure.js and refresher.js),
 * not the review's signals: a line is shown while the tool is in use (an assistant run in the
 * terminal, a focused window in the editor); after at least 10 s on screen the next invocation
 * moves on and reports the dwell; an exposure that ends early (the run ends, the person switches
 * away) is reported with its own dwell at the next use; one offer is kept ready (fetched when the
 * previous one is shown, at most one decision per 10 s) and dropped after 30 minutes unshown; most
 * people's projects have manifests, so their decisions carry topics; clicks are rare and vary by
 * person.
 */
import { logNormal, rng, uniform } from '../random.ts'

export const FAMILIES = [
  'honest_individuals',
  'honest_office',
  'honest_cgnat',
  'naive_bot',
  'careful_bot',
  'ipv6_48_bot',
  'residential_bot',
] as const
export type Family = (typeof FAMILIES)[number]

/** What an agent asks of the service; each call is one real request. */
export interface Wire {
  /** POST /serve/v1/decisions; the impression id, or null for no fill or a refusal. */
  decide(agent: Agent, topics: readonly string[] | null): Promise<string | null>
  /** POST /serve/v1/impressions/{id}/view. */
  view(agent: Agent, impressionId: string, dwellMs: number): Promise<void>
  /** GET /serve/v1/impressions/{id}/click (the redirect is never followed). */
  click(agent: Agent, impressionId: string): Promise<void>
}

export interface Agent {
  readonly family: Family
  readonly viewerId: string
  readonly ip: string
  readonly surface: 'extension' | 'terminal'
  readonly country: string | null
  /** When the agent first acts (ms into the window). */
  readonly startsAt: number
  /** Acts at `now` (ms into the window); returns when it next wants to act, or null when it is done. */
  act(now: number, wire: Wire): Promise<number | null>
}

const MIN_DECISION_GAP_MS = 10_000
const MIN_EXPOSURE_MS = 10_000
const OFFER_TTL_MS = 30 * 60_000
const MINUTE = 60_000

/** Topics a project's manifests may give (names of the published vocabulary, domain/topics.ts). */
const TOPIC_POOL = ['python', 'javascript', 'typescript', 'go', 'rust', 'java', 'kotlin', 'ruby', 'php', 'csharp', 'react', 'nextjs', 'vue', 'django', 'fastapi', 'spring', 'postgresql', 'redis', 'docker', 'kubernetes', 'aws', 'terraform', 'pytest', 'jest']
const COUNTRIES = ['US', 'US', 'US', 'IN', 'DE', 'GB', 'BR', 'FR', 'CA', 'JP', 'NL', 'PL', null]

interface Offer {
  id: string
  decidedAt: number
}

/**
 * One person with one install (one viewer id), in sessions of use: in the terminal, assistant runs
 * separated by reading and typing; in the editor, focused stretches separated by other windows.
 */
export class HonestPerson implements Agent {
  readonly surface: 'extension' | 'terminal'
  readonly country: string | null
  readonly startsAt: number
  readonly #r: () => number
  readonly #end: number
  readonly #topics: readonly string[] | null
  readonly #ctr: number
  /** Long autonomous agent runs rather than short prompts. */
  readonly #agentic: boolean
  #active = false
  #phaseEnd = 0
  #current: (Offer & { shownAt: number; rotateAt: number }) | null = null
  #next: Offer | null = null
  #pending: { id: string; dwellMs: number } | null = null
  #lastDecisionAt = -Infinity

  constructor(
    readonly family: Family,
    readonly viewerId: string,
    readonly ip: string,
    seed: string,
    windowMs: number,
  ) {
    const r = rng(seed)
    this.#r = r
    this.surface = r() < 0.55 ? 'terminal' : 'extension'
    this.country = COUNTRIES[Math.floor(r() * COUNTRIES.length)] ?? null
    // 85 % work in a project whose manifests give topics; the client sends one to three of them.
    this.#topics = r() < 0.85 ? Array.from(new Set(Array.from({ length: 1 + Math.floor(r() * 3) }, () => TOPIC_POOL[Math.floor(r() * TOPIC_POOL.length)]!))) : null
    // Click-through varies by person around 1 %.
    this.#ctr = Math.min(0.08, logNormal(r, 0.008, 1))
    this.#agentic = this.surface === 'terminal' && r() < 0.2
    // The person uses the tool for part of the window.
    this.startsAt = Math.floor(uniform(r, 0, 0.6) * windowMs)
    this.#end = Math.min(windowMs, this.startsAt + Math.floor(uniform(r, 0.3, 1) * windowMs))
  }

  /** How long one use lasts: an assistant run or a focused stretch of the editor. */
  #useMs(): number {
    if (this.surface === 'extension') return logNormal(this.#r, 90_000, 1)
    return this.#agentic ? logNormal(this.#r, 6 * MINUTE, 0.9) : logNormal(this.#r, 35_000, 1)
  }

  /** Time between uses: reading, typing, another window; now and then a break. */
  #pauseMs(): number {
    if (this.#r() < 0.05) return uniform(this.#r, 10 * MINUTE, 60 * MINUTE)
    return this.surface === 'extension' ? logNormal(this.#r, 40_000, 1.2) : logNormal(this.#r, 50_000, 1.1)
  }

  /** How long a line stays before the next invocation moves on: the terminal's next call after 10 s, the editor's timer with the person's own pace. */
  #rotationMs(): number {
    return this.surface === 'terminal' ? MIN_EXPOSURE_MS + uniform(this.#r, 0, 1_500) : MIN_EXPOSURE_MS + Math.min(50_000, -Math.log(1 - this.#r()) * 5_000)
  }

  async #decide(now: number, wire: Wire): Promise<Offer | null> {
    if (now - this.#lastDecisionAt < MIN_DECISION_GAP_MS) return null
    this.#lastDecisionAt = now
    // Now and then the workspace is not passed (a shell outside a project): no topics.
    const topics = this.#topics && this.#r() < 0.95 ? this.#topics : null
    const id = await wire.decide(this, topics)
    return id === null ? null : { id, decidedAt: now }
  }

  async act(now: number, wire: Wire): Promise<number | null> {
    if (!this.#active) {
      if (now >= this.#end) return null
      // A use begins: the previous exposure's report goes out with the first invocation.
      this.#active = true
      this.#phaseEnd = now + Math.max(1_000, Math.round(this.#useMs()))
      if (this.#pending) {
        await wire.view(this, this.#pending.id, this.#pending.dwellMs)
        this.#pending = null
      }
    }
    if (now >= this.#phaseEnd) {
      // The use ended before the line's 10 s: the exposure ends with what it had.
      const c = this.#current
      if (c) this.#pending = { id: c.id, dwellMs: Math.max(0, this.#phaseEnd - c.shownAt) }
      this.#current = null
      this.#active = false
      const resume = this.#phaseEnd + Math.round(this.#pauseMs())
      return resume < this.#end ? resume : null
    }
    const c = this.#current
    if (c && now >= c.rotateAt) {
      await wire.view(this, c.id, c.rotateAt - c.shownAt)
      if (this.#r() < this.#ctr) await wire.click(this, c.id)
      this.#current = null
    }
    if (!this.#current) {
      const ready = this.#next && now - this.#next.decidedAt < OFFER_TTL_MS ? this.#next : null
      this.#next = null
      const offer = ready ?? (await this.#decide(now, wire))
      if (offer) this.#current = { ...offer, shownAt: now, rotateAt: now + Math.round(this.#rotationMs()) }
    }
    if (!this.#next) this.#next = await this.#decide(now, wire)
    const wakes = [this.#phaseEnd]
    if (this.#current) wakes.push(this.#current.rotateAt)
    if (!this.#current || !this.#next) wakes.push(Math.max(now + 1, this.#lastDecisionAt + MIN_DECISION_GAP_MS))
    return Math.min(...wakes)
  }
}

/** A bot's loop: decision → wait the dwell → view (→ a click every few rounds) → the next decision one gap after the last. */
export class LoopBot implements Agent {
  readonly startsAt: number
  readonly surface: 'extension' | 'terminal'
  readonly country: string | null
  readonly #r: () => number
  readonly #gapMs: (r: () => number) => number
  readonly #dwellMs: (r: () => number, gapMs: number) => number
  readonly #clickEvery: ((r: () => number) => number) | null
  readonly #end: number
  #nextDecisionAt: number
  #view: { id: string; at: number; dwellMs: number } | null = null
  #roundsToClick = Infinity

  constructor(
    readonly family: Family,
    readonly viewerId: string,
    readonly ip: string,
    seed: string,
    behaviour: {
      startsAt: number
      endsAt: number
      gapMs: (r: () => number) => number
      dwellMs: (r: () => number, gapMs: number) => number
      clickEvery: ((r: () => number) => number) | null
    },
  ) {
    this.#r = rng(seed)
    this.surface = this.#r() < 0.5 ? 'terminal' : 'extension'
    this.country = 'US'
    this.#gapMs = behaviour.gapMs
    this.#dwellMs = behaviour.dwellMs
    this.#clickEvery = behaviour.clickEvery
    this.#end = behaviour.endsAt
    this.startsAt = behaviour.startsAt
    this.#nextDecisionAt = behaviour.startsAt
    if (this.#clickEvery) this.#roundsToClick = this.#clickEvery(this.#r)
  }

  async act(now: number, wire: Wire): Promise<number | null> {
    const v = this.#view
    if (v && now >= v.at) {
      await wire.view(this, v.id, v.dwellMs)
      this.#view = null
      if (this.#clickEvery && --this.#roundsToClick <= 0) {
        await wire.click(this, v.id)
        this.#roundsToClick = this.#clickEvery(this.#r)
      }
    }
    if (now >= this.#nextDecisionAt && now < this.#end) {
      const gap = this.#gapMs(this.#r)
      const id = await wire.decide(this, null)
      if (id !== null) {
        const dwellMs = this.#dwellMs(this.#r, gap)
        this.#view = { id, at: now + dwellMs, dwellMs }
      }
      this.#nextDecisionAt = now + gap
    }
    const wakes = [...(this.#view ? [this.#view.at] : []), ...(this.#nextDecisionAt < this.#end ? [this.#nextDecisionAt] : [])]
    return wakes.length > 0 ? Math.min(...wakes) : null
  }
}

/** The careful bot's pattern: gaps of 10-17 s, a random dwell past the threshold within the gap, a click every 3-5 rounds. */
const careful = {
  gapMs: (r: () => number) => Math.round(uniform(r, 10_000, 17_000)),
  dwellMs: (r: () => number, gap: number) => Math.round(uniform(r, 9_600, Math.max(9_700, gap - 200))),
  clickEvery: (r: () => number) => 3 + Math.floor(r() * 3),
}

/** Family sizes; `scale` (0-1] shrinks the honest crowds and the spread bots for a quicker run, never the single-address bots. */
export interface FamilySizes {
  individuals: number
  office: number
  cgnat: number
  naiveViewers: number
  carefulViewers: number
  ipv6Subnets: number
  ipv6ViewersPerSubnet: number
  residentialAddresses: number
  residentialViewersPerAddress: number
  /** Minutes each residential viewer runs (a shift somewhere in the window). */
  residentialShiftMinutes: number
}

export const DEFAULT_SIZES: FamilySizes = {
  individuals: 300,
  office: 50,
  cgnat: 500,
  naiveViewers: 3,
  carefulViewers: 29,
  ipv6Subnets: 16,
  ipv6ViewersPerSubnet: 4,
  residentialAddresses: 300,
  residentialViewersPerAddress: 3,
  residentialShiftMinutes: 12,
}

/** An IPv6 address of person `i` of the honest individuals: each in its own /48 of 2001:db8::/32 (documentation range). */
const honestIpv6 = (i: number) => `2001:db8:${(0x100 + i).toString(16)}:${(i % 7).toString(16)}::${(i + 2).toString(16)}`
/** Honest individuals on IPv4: 198.18.0.0/15 (benchmarking range), as the plain simulator. */
const honestIpv4 = (i: number) => `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`
/** Residential addresses of the spread bot: scattered over 198.19.0.0/16, one per /24. */
const residentialIpv4 = (i: number) => `198.19.${i % 256}.${(Math.floor(i / 256) * 37 + 11) % 254 + 1}`

/** Every agent of a run: the families with their sizes, over a window of `windowMs`. */
export function buildAgents(seed: number, windowMs: number, sizes: FamilySizes = DEFAULT_SIZES): Agent[] {
  const agents: Agent[] = []
  const id = (family: string, i: number) => `rev-${seed.toString(36)}-${family}-${i.toString(36)}`
  const s = (family: string, i: number) => `${seed}:${family}:${i}`
  for (let i = 0; i < sizes.individuals; i++) {
    const ip = rng(s('ip', i))() < 0.3 ? honestIpv6(i) : honestIpv4(i)
    agents.push(new HonestPerson('honest_individuals', id('ind', i), ip, s('ind', i), windowMs))
  }
  for (let i = 0; i < sizes.office; i++) agents.push(new HonestPerson('honest_office', id('off', i), '203.0.113.10', s('off', i), windowMs))
  for (let i = 0; i < sizes.cgnat; i++) agents.push(new HonestPerson('honest_cgnat', id('cgn', i), '100.64.0.1', s('cgn', i), windowMs))
  for (let i = 0; i < sizes.naiveViewers; i++) {
    agents.push(
      new LoopBot('naive_bot', id('nai', i), '192.0.2.66', s('nai', i), {
        startsAt: i * 1_000,
        endsAt: windowMs,
        gapMs: () => 10_000,
        dwellMs: () => 9_600,
        clickEvery: null,
      }),
    )
  }
  for (let i = 0; i < sizes.carefulViewers; i++) {
    const startsAt = Math.floor(rng(s('car-start', i))() * 17_000)
    agents.push(new LoopBot('careful_bot', id('car', i), '192.0.2.77', s('car', i), { startsAt, endsAt: windowMs, ...careful }))
  }
  for (let n = 0; n < sizes.ipv6Subnets; n++) {
    for (let v = 0; v < sizes.ipv6ViewersPerSubnet; v++) {
      const i = n * sizes.ipv6ViewersPerSubnet + v
      const startsAt = Math.floor(rng(s('v6-start', i))() * 17_000)
      const ip = `2001:db8:bad:${(0x10 + n).toString(16)}::${(v + 1).toString(16)}`
      agents.push(new LoopBot('ipv6_48_bot', id('v6', i), ip, s('v6', i), { startsAt, endsAt: windowMs, ...careful }))
    }
  }
  const shiftMs = Math.min(windowMs, sizes.residentialShiftMinutes * MINUTE)
  for (let a = 0; a < sizes.residentialAddresses; a++) {
    for (let v = 0; v < sizes.residentialViewersPerAddress; v++) {
      const i = a * sizes.residentialViewersPerAddress + v
      const startsAt = Math.floor(rng(s('res-start', i))() * (windowMs - shiftMs))
      agents.push(new LoopBot('residential_bot', id('res', i), residentialIpv4(a), s('res', i), { startsAt, endsAt: startsAt + shiftMs, ...careful }))
    }
  }
  return agents
}
