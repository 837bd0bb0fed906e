/**
 * Topic targeting's cost in the decision path (`npm run bench:topics`, issue 40): a micro-benchmark,
 * in-process, of what a decision does in memory: `normaliseDecisionTopics` (the route), the
 * auction walk (`EligibleLists#of` + `runAuction`, with its topic check), `attributedTopic` and the
 * decision's count by topic (`TopicCounter#count`, never flushed here). Cases, each over the same
 * 200 ranked candidates (one in ten with inventory left, so the walk visits several):
 *   - `baseline`: the walk alone, no topics anywhere (what a decision did before topics);
 *   - `no topics sent`: the whole topic path for an old client;
 *   - `4 sent, 30 % targeted`: four names sent (one unknown), 30 % of campaigns with topics.
 * Figures are CPU ns per decision, the median of --rounds rounds of --iterations each. A decision's
 * whole request costs far more (docs/performance.md: about 120 µs of service CPU): the figures
 * show what topics add to it. Options: --rounds N (5), --iterations N (400,000).
 */
import { parseArgs } from 'node:util'
import { EligibleLists, runAuction, type Candidate, type DecisionRequest } from '../src/domain/auction.ts'
import { CTR_PRIOR } from '../src/domain/ctr.ts'
import { attributedTopic, normaliseDecisionTopics, TOPICS } from '../src/domain/topics.ts'
import { TopicCounter } from '../src/serving/topic-counter.ts'
import type { Db } from '../src/store/db.ts'

const { values: args } = parseArgs({ options: { rounds: { type: 'string' }, iterations: { type: 'string' } }, strict: true })
const ROUNDS = Number(args.rounds ?? 5)
const ITERATIONS = Number(args.iterations ?? 400_000)
const CANDIDATES = 200

function candidates(targeted: number): Candidate[] {
  return Array.from({ length: CANDIDATES }, (_, i) => ({
    campaignId: `cmp_${i}`,
    userId: `usr_${i % 20}`,
    creativeId: `crv_${i}`,
    seq: i,
    cpmMicros: 1_000_000 + ((i * 7919) % 5_000_000),
    kind: 'impression' as const,
    targetSurface: 'blended' as const,
    targetCountries: null,
    paceMinutes: null,
    impressions: 1000,
    billed: i % 10 === 0 ? 0 : 1000,
    activatedAtMs: 0,
    pausedMs: 0,
    adLine: 'x',
    brand: null,
    iconUrl: null,
    destinationUrl: 'https://example.com/',
    targetTopics: i / CANDIDATES < targeted ? new Set([TOPICS[i % 50]!.topic, TOPICS[(i * 3) % 80]!.topic]) : null,
  }))
}

// Never flushed: the timer is unref'd and the store is never called.
const counter = new TopicCounter({} as Db, { warn() {} } as never)
let clockMs = 0

function cpuNsPerCall(fn: () => unknown): number {
  for (let i = 0; i < 20_000; i++) fn()
  const start = process.cpuUsage()
  for (let i = 0; i < ITERATIONS; i++) fn()
  const used = process.cpuUsage(start)
  return ((used.user + used.system) * 1000) / ITERATIONS
}

const plain = new EligibleLists(candidates(0), () => CTR_PRIOR)
const mixed = new EligibleLists(candidates(0.3), () => CTR_PRIOR)
const noTopics: DecisionRequest = { surface: 'extension', country: null, topics: [] }
const sent = ['python', 'no-such-topic', 'django', 'pytest']

const cases: Record<string, () => unknown> = {
  baseline: () => runAuction(plain.of(noTopics), 1, () => 0),
  'no topics sent': () => {
    const topics = normaliseDecisionTopics(undefined)
    const winner = runAuction(plain.of(noTopics), 1, () => 0, topics)
    counter.count(++clockMs, topics)
    return winner && attributedTopic(winner.targetTopics, topics)
  },
  '4 sent, 30 % targeted': () => {
    const topics = normaliseDecisionTopics(sent)
    const winner = runAuction(mixed.of(noTopics), 1, () => 0, topics)
    counter.count(++clockMs, topics)
    return winner && attributedTopic(winner.targetTopics, topics)
  },
}

const results = new Map<string, number[]>()
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, fn] of Object.entries(cases)) results.set(name, [...(results.get(name) ?? []), cpuNsPerCall(fn)])
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
process.stdout.write(`CPU per decision, in memory (median of ${ROUNDS} × ${ITERATIONS.toLocaleString('en')}):\n`)
for (const [name, xs] of results) {
  process.stdout.write(`  ${name.padEnd(24)} ${median(xs).toFixed(0).padStart(6)} ns   (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})\n`)
}
process.exit(0)
