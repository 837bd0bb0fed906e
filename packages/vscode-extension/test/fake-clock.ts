/** The controller's clock in tests: time moves only when the test says, and timers run then. */

/** A clock whose timers run only when the test moves time on. */
export class FakeClock {
  t = 1_800_000_000_000
  private timers: { at: number; fn: () => void; id: number }[] = []
  private seq = 0
  now = () => this.t
  setTimer = (fn: () => void, ms: number) => {
    const id = ++this.seq
    this.timers.push({ at: this.t + ms, fn, id })
    return () => void (this.timers = this.timers.filter((x) => x.id !== id))
  }
  pending = () => this.timers.length
  /** Moves time on by `ms`, running every timer due, in order (and the promises they settle). */
  async advance(ms: number) {
    const end = this.t + ms
    for (;;) {
      await settle()
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at)[0]
      if (!due) break
      this.timers = this.timers.filter((x) => x !== due)
      this.t = Math.max(this.t, due.at)
      due.fn()
    }
    this.t = end
    await settle()
  }
}

/** Lets the promises already settled run their callbacks (no I/O is waited for). */
export const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}
