import { leaderboardBehind, leaderboardWindow, rankBrands, type LeaderboardRow } from '../domain/leaderboard.ts'
import type { Window } from '../domain/stats.ts'
import { brandImpressions } from '../store/leaderboard.ts'
import { readRolledThrough } from '../store/rollups.ts'
import type { ServiceContext } from './context.ts'
import { rolledUpRead } from './lag-tolerant.ts'

export interface Leaderboard {
  window: Window
  /** The rollups have not closed yesterday yet: the window ends earlier than today's midnight. */
  behind: boolean
  brands: LeaderboardRow[]
}

/**
 * How long one instance reuses a computed board at most (service time). The
 * board of a window is fixed once its days are rolled up: the rollups of a
 * closed day are never rewritten with other figures, and a campaign's brand
 * and opt-in are set when it is created. So the board is computed again when
 * the rollups move (the key below) and, as a safety net for anything else,
 * at least every five minutes.
 */
export const LEADERBOARD_REUSE_MS = 5 * 60_000

/**
 * The leaderboard use case, for one instance: the window from the service
 * clock and the rollup watermark (domain/leaderboard.ts), the brands from the
 * daily rollups, ranked. The figures of a window are computed once and
 * reused (see LEADERBOARD_REUSE_MS): summing a month of every campaign's
 * rollups takes tens of milliseconds on a large store, the watermark read
 * that guards the reuse well under one. Concurrent readers share one
 * computation. The sums may come from the read replica, once it has rolled
 * up the same days (services/lag-tolerant.ts).
 */
export function leaderboardReader(ctx: Pick<ServiceContext, 'db' | 'reads' | 'clock'>): () => Promise<Leaderboard> {
  let memo: { key: string; atMs: number; brands: Promise<LeaderboardRow[]> } | null = null
  return async function readLeaderboard(): Promise<Leaderboard> {
    const nowMs = ctx.clock.nowMs()
    const rolledThrough = await readRolledThrough(ctx.db)
    const window = leaderboardWindow(nowMs, rolledThrough)
    const key = `${rolledThrough ?? 'none'}/${window.endMs}`
    if (memo === null || memo.key !== key || nowMs - memo.atMs >= LEADERBOARD_REUSE_MS || nowMs < memo.atMs) {
      const brands = rolledUpRead(ctx, rolledThrough, (db) => brandImpressions(db, window)).then((totals) => rankBrands(totals))
      const entry = { key, atMs: nowMs, brands }
      memo = entry
      // A failed computation is not kept: the next reader tries again.
      brands.catch(() => {
        if (memo === entry) memo = null
      })
    }
    return { window, behind: leaderboardBehind(window, nowMs), brands: await memo.brands }
  }
}
