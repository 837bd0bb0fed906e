/**
 * Summarises a V8 .cpuprofile (as written by `node --cpu-prof`, e.g. through
 * `npm run bench -- --cpu-prof .tmp/prof`): where the time went, by module and
 * by function, self and inclusive.
 *
 *   npx tsx bench/cpuprofile-top.ts .tmp/prof/service-postgres-123.cpuprofile [--top 25] [--filter src/]
 *   npx tsx bench/cpuprofile-top.ts FILE --timeline          # busy share per second, to find a phase
 *   npx tsx bench/cpuprofile-top.ts FILE --from 40 --to 70   # only the samples of that phase (seconds)
 */
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const { values, positionals } = parseArgs({
  options: { top: { type: 'string' }, filter: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, timeline: { type: 'boolean' } },
  allowPositionals: true,
})
const file = positionals[0]
if (!file) {
  process.stderr.write('usage: npx tsx bench/cpuprofile-top.ts FILE.cpuprofile [--top N] [--filter TEXT] [--from S] [--to S] [--timeline]\n')
  process.exit(2)
}
const top = Number(values.top ?? 25)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
/** Sample window in µs since the profile's first sample. */
const fromUs = Number(values.from ?? 0) * 1e6
const toUs = values.to === undefined ? Infinity : Number(values.to) * 1e6

const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

/** Groups a script URL: a package under node_modules, a project file, or a Node built-in. */
function moduleOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)'
  const nm = url.lastIndexOf('node_modules/')
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/')
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!
  }
  const src = url.indexOf('/src/')
  if (src >= 0) return url.slice(src + 1)
  if (url.startsWith('node:')) return url
  return url.replace(/^file:\/\//, '')
}
function fnKey(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame
  const where = url ? `${moduleOf(url, functionName)}:${lineNumber + 1}` : ''
  return `${functionName || '(anonymous)'}${where ? ` ${where}` : ''}`
}

const selfFn = new Map<string, number>()
const selfModule = new Map<string, number>()
const inclFn = new Map<string, number>()
const busyPerSecond: { busy: number; all: number }[] = []
let total = 0
let at = 0
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0
  at += dt
  const node = byId.get(profile.samples[i]!)
  if (!node) continue
  const second = (busyPerSecond[Math.floor(at / 1e6)] ??= { busy: 0, all: 0 })
  second.all += dt
  if (node.callFrame.functionName !== '(idle)') second.busy += dt
  if (at < fromUs || at >= toUs) continue
  total += dt
  const key = fnKey(node)
  selfFn.set(key, (selfFn.get(key) ?? 0) + dt)
  const mod = moduleOf(node.callFrame.url, node.callFrame.functionName)
  selfModule.set(mod, (selfModule.get(mod) ?? 0) + dt)
  const seen = new Set<string>()
  for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
    const k = fnKey(byId.get(id)!)
    if (seen.has(k)) continue
    seen.add(k)
    inclFn.set(k, (inclFn.get(k) ?? 0) + dt)
  }
}

const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`
const show = (title: string, m: Map<string, number>, filter?: string) => {
  process.stdout.write(`\n${title}\n`)
  const rows = [...m].filter(([k]) => !filter || k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, top)
  for (const [k, us] of rows) process.stdout.write(`${pct(us)}  ${k}\n`)
}
if (values.timeline) {
  process.stdout.write('second  busy (share of the second not idle)\n')
  busyPerSecond.forEach((s, i) => s && process.stdout.write(`${String(i).padStart(6)}  ${((100 * s.busy) / Math.max(s.all, 1)).toFixed(0).padStart(3)}%\n`))
  process.exit(0)
}
process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled${values.from || values.to ? ` (from ${values.from ?? 0} s to ${values.to ?? 'the end'})` : ''}\n`)
show('self time by module', selfModule)
show('self time by function', selfFn)
show(`inclusive time by function${values.filter ? ` (matching "${values.filter}")` : ''}`, inclFn, values.filter)
