/**
 * The review simulation's event loop: every agent wakes at service times of its choosing; the
 * loop moves the service's manual clock to the next whole second at which someone is due
 * (POST /admin/v1/clock, which also runs the jobs that fall due), then lets every agent due by
 * then act. Agents behind one address act one after another in a fixed order (what one source
 * may bill depends on the order of its units); addresses act side by side. So a seed gives the
 * same requests in the same per-source order, and the same outcome.
 */
import { jsonObject, type OriginPool } from '../../lib/http.ts'
import type { Agent, Wire } from './families.ts'

const TICK_MS = 1_000

/** A binary min-heap of (time, order) → agent. */
class Agenda {
  #items: { at: number; order: number; agent: Agent }[] = []
  get size(): number {
    return this.#items.length
  }
  peek(): number {
    return this.#items[0]?.at ?? Infinity
  }
  push(at: number, order: number, agent: Agent): void {
    const a = this.#items
    a.push({ at, order, agent })
    let i = a.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.#less(a[i]!, a[p]!)) break
      ;[a[i], a[p]] = [a[p]!, a[i]!]
      i = p
    }
  }
  pop(): { at: number; order: number; agent: Agent } | undefined {
    const a = this.#items
    const top = a[0]
    const last = a.pop()
    if (a.length > 0 && last) {
      a[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < a.length && this.#less(a[l]!, a[m]!)) m = l
        if (r < a.length && this.#less(a[r]!, a[m]!)) m = r
        if (m === i) break
        ;[a[i], a[m]] = [a[m]!, a[i]!]
        i = m
      }
    }
    return top
  }
  #less(x: { at: number; order: number }, y: { at: number; order: number }): boolean {
    return x.at < y.at || (x.at === y.at && x.order < y.order)
  }
}

export interface EngineCounts {
  decisions: number
  filled: number
  views: number
  clicks: number
  /** Answers other than 200/204 (decisions), 204 (views), 302 (clicks), by status. */
  refused: Record<string, number>
  clockMoves: number
}

/**
 * Runs `agents` from `originMs` (service time of the window's start) for `windowMs` against the
 * service behind `http`, with `concurrency` addresses acting at once. `progress` hears the share done.
 */
export async function runAgents(
  http: OriginPool,
  admin: Record<string, string>,
  agents: readonly Agent[],
  originMs: number,
  windowMs: number,
  concurrency: number,
  progress: (done: number, counts: EngineCounts) => void = () => {},
): Promise<EngineCounts> {
  const counts: EngineCounts = { decisions: 0, filled: 0, views: 0, clicks: 0, refused: {}, clockMoves: 0 }
  const refused = (what: string, status: number) => {
    const k = `${what} ${status}`
    counts.refused[k] = (counts.refused[k] ?? 0) + 1
  }
  const order = new Map(agents.map((a, i) => [a, i]))
  const wire: Wire = {
    async decide(agent, topics) {
      const body = { surface: agent.surface, viewer_id: agent.viewerId, ...(agent.country ? { country: agent.country } : {}), ...(topics ? { topics } : {}) }
      const res = await http.call('POST', '/serve/v1/decisions', body, { 'x-forwarded-for': agent.ip })
      counts.decisions++
      if (res.status === 200) {
        const id = jsonObject(res.text).impression_id
        if (typeof id === 'string') {
          counts.filled++
          return id
        }
      }
      if (res.status !== 204) refused('decision', res.status)
      return null
    },
    async view(agent, id, dwellMs) {
      const res = await http.call('POST', `/serve/v1/impressions/${encodeURIComponent(id)}/view`, { dwell_ms: dwellMs }, { 'x-forwarded-for': agent.ip })
      if (res.status === 204) counts.views++
      else refused('view', res.status)
    },
    async click(agent, id) {
      const res = await http.call('GET', `/serve/v1/impressions/${encodeURIComponent(id)}/click`, undefined, { 'x-forwarded-for': agent.ip })
      if (res.status === 302) counts.clicks++
      else refused('click', res.status)
    },
  }
  const agenda = new Agenda()
  for (const a of agents) agenda.push(a.startsAt, order.get(a)!, a)
  let clockAt = 0
  while (agenda.size > 0 && agenda.peek() < windowMs) {
    const tick = Math.ceil(agenda.peek() / TICK_MS) * TICK_MS
    if (tick > clockAt || counts.clockMoves === 0) {
      const res = await http.call('POST', '/admin/v1/clock', { now: new Date(originMs + tick).toISOString() }, admin)
      if (res.status !== 200) throw new Error(`POST /admin/v1/clock answered ${res.status}: ${res.text.slice(0, 200)}`)
      counts.clockMoves++
      clockAt = tick
    }
    // Everyone due by this tick, grouped by address in agent order.
    const byAddress = new Map<string, Agent[]>()
    while (agenda.size > 0 && agenda.peek() <= tick) {
      const { agent } = agenda.pop()!
      const list = byAddress.get(agent.ip)
      if (list) list.push(agent)
      else byAddress.set(agent.ip, [agent])
    }
    const groups = [...byAddress.values()]
    let next = 0
    const worker = async () => {
      while (next < groups.length) {
        const group = groups[next++]!
        for (const agent of group) {
          const wake = await agent.act(tick, wire)
          if (wake !== null && wake < windowMs) agenda.push(Math.max(wake, tick + 1), order.get(agent)!, agent)
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, groups.length) }, worker))
    progress(tick / windowMs, counts)
  }
  return counts
}
