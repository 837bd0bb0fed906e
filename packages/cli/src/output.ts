import { createRequire } from 'node:module'
import pc from 'picocolors'
import type { Stream } from './context.js'

/**
 * Where a command writes. With `--json` stdout carries exactly one JSON document (or, for
 * `campaigns watch`, one per line) and nothing else; people's text goes to stdout otherwise, and
 * progress, prompts and notes to stderr. Colour and progress only on a terminal, never with NO_COLOR.
 */
export class Output {
  readonly colors: ReturnType<typeof pc.createColors>
  readonly interactive: boolean

  constructor(
    readonly json: boolean,
    readonly stdout: Stream,
    readonly stderr: Stream,
    env: NodeJS.ProcessEnv,
  ) {
    const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== ''
    this.colors = pc.createColors(!noColor && Boolean(stdout.isTTY) && env.TERM !== 'dumb')
    this.interactive = Boolean(stderr.isTTY) && Boolean(process.stdin.isTTY)
  }

  /** Progress bars and spinners: a terminal on stderr, and not --json output being piped. */
  get showsProgress(): boolean {
    return Boolean(this.stderr.isTTY) && process.env.NO_COLOR === undefined
  }

  /** The machine answer (with --json) or nothing. */
  data(value: unknown): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`)
  }

  /** One JSON document per line (watch). */
  dataLine(value: unknown): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value)}\n`)
  }

  /** Text for people; silent with --json. */
  line(text = ''): void {
    if (!this.json) this.stdout.write(`${text}\n`)
  }

  /** Notes and warnings, on stderr whatever the mode. */
  note(text: string): void {
    this.stderr.write(`${text}\n`)
  }

  table(head: string[], rows: (string | number)[][], align: ('left' | 'right')[] = []): void {
    if (this.json) return
    // Loaded on first use: most of adctl's start-up is module loading, and --json never draws a table.
    const Table: typeof import('cli-table3') = createRequire(import.meta.url)('cli-table3')
    const table = new Table({
      head: head.map((h) => this.colors.bold(h)),
      colAligns: head.map((_, i) => align[i] ?? 'left'),
      style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 0 },
      chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
    })
    table.push(...rows.map((r) => r.map(String)))
    this.stdout.write(`${table.toString().split('\n').map((l) => l.trimEnd()).join('\n')}\n`)
  }

  /** Label: value pairs, aligned. */
  pairs(pairs: [string, string | number][]): void {
    if (this.json) return
    const width = Math.max(...pairs.map(([k]) => k.length))
    for (const [k, v] of pairs) this.stdout.write(`${this.colors.dim(k.padEnd(width))}  ${v}\n`)
  }
}
