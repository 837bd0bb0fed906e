/**
 * The one service clock. Every timestamp the service writes and every
 * time-dependent rule (windows, expiries, schedules, pacing, rate limits)
 * reads it, so tests and operators can freeze and move time.
 */
export interface Clock {
  readonly kind: 'system' | 'manual'
  now(): Date
  nowMs(): number
}

export class SystemClock implements Clock {
  readonly kind = 'system' as const
  now(): Date {
    return new Date(Date.now())
  }
  nowMs(): number {
    return Date.now()
  }
}

/** Frozen time that only moves forward when told to (operator clock endpoint). */
export class ManualClock implements Clock {
  readonly kind = 'manual' as const
  #ms: number

  constructor(start: Date) {
    this.#ms = start.getTime()
  }

  now(): Date {
    return new Date(this.#ms)
  }

  nowMs(): number {
    return this.#ms
  }

  /** Moves the clock to `to`; refuses to go backwards. */
  set(to: Date): void {
    const ms = to.getTime()
    if (!Number.isFinite(ms)) throw new RangeError('invalid instant')
    if (ms < this.#ms) throw new RangeError('the manual clock only moves forward')
    this.#ms = ms
  }
}
