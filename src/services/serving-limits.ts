import { servingLimitsOf, type ServingLimits } from '../domain/rate-limits.ts'
import { BlockList } from '../domain/invalid-traffic.ts'
import type { ServiceConfig } from '../domain/order-config.ts'
import { readConfig } from '../store/settings.ts'
import { listTrafficBlocks } from '../store/traffic-blocks.ts'
import type { ServiceContext } from './context.ts'

/** The serving path's view of the operator's settings: the abuse limits and the block list. */
export interface ServingRules extends ServingLimits {
  blocks: BlockList
}

/**
 * How long this instance serves the abuse limits it read before reading
 * them again (real time, not service time: a frozen manual clock must not
 * freeze the config). A change made through this instance applies at once
 * (`apply`); one made through another instance, within this long.
 */
export const SERVING_LIMITS_TTL_MS = 2_000

/**
 * The serving abuse limits (operator config `serve_*_per_min`), the invalid-traffic bounds
 * (`ivt_*`) and the block list (`traffic_blocks`) as the
 * serving routes read them on every request, without a store query each:
 * the first read waits for the store; later ones answer the values held and,
 * once they are older than the TTL, start one reload in the background. A
 * failed reload keeps the values held (and is reported to `onError`), so a
 * store in trouble never adds a wait to the serving path.
 */
export class ServingLimitsCache {
  readonly #ctx: Pick<ServiceContext, 'db'>
  readonly #ttlMs: number
  #limits: ServingRules | null = null
  #readAt = 0
  #loading: Promise<ServingRules> | null = null

  constructor(ctx: Pick<ServiceContext, 'db'>, ttlMs = SERVING_LIMITS_TTL_MS) {
    this.#ctx = ctx
    this.#ttlMs = ttlMs
  }

  async current(onError: (err: unknown) => void): Promise<ServingRules> {
    if (this.#limits === null) return this.#load()
    if (performance.now() - this.#readAt >= this.#ttlMs) this.#load().catch(onError)
    return this.#limits
  }

  /** The config just written (PATCH /admin/v1/config, the console's form): this instance serves it from the next request. */
  apply(config: ServiceConfig): void {
    this.#limits = { ...servingLimitsOf(config), blocks: this.#limits?.blocks ?? new BlockList([]) }
    this.#readAt = performance.now()
  }

  /** The block list just changed through this instance: it applies from the next request. */
  async reloadNow(): Promise<void> {
    await this.#loading?.catch(() => undefined)
    await this.#load()
  }

  #load(): Promise<ServingRules> {
    this.#loading ??= Promise.all([readConfig(this.#ctx.db), listTrafficBlocks(this.#ctx.db)])
      .then(([config, blocks]) => {
        const rules = { ...servingLimitsOf(config), blocks: new BlockList(blocks) }
        this.#limits = rules
        this.#readAt = performance.now()
        return rules
      })
      .finally(() => {
        this.#loading = null
      })
    return this.#loading
  }
}
