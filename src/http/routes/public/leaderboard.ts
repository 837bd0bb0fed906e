import type { App, RouteDeps } from '../../types.ts'
import { LeaderboardPage } from '../../pages/public/leaderboard.tsx'
import { renderDocument } from '../../pages/render.ts'
import { apiErrorHandler } from '../../plugins/errors.ts'
import { limitByAddress } from '../../plugins/auth.ts'
import { STATUS_RATE_PER_MIN } from '../v1/status.ts'
import { leaderboardReader } from '../../../services/leaderboard.ts'
import { sendCacheable } from './cache.ts'

/**
 * `/leaderboard` and `/leaderboard.json` (operations.md section 5): one board,
 * read through one reader per instance (services/leaderboard.ts), as a page
 * and as JSON. Both are cacheable for a minute, with an ETag; both count
 * against the per-address budget of the public reads (GET /v1/status).
 */
export function leaderboardRoutes(deps: RouteDeps) {
  return async (app: App) => {
    const readLeaderboard = leaderboardReader(deps)
    const limit = limitByAddress(deps, STATUS_RATE_PER_MIN)

    app.get('/leaderboard', { onRequest: limit }, async (request, reply) => {
      const board = await readLeaderboard()
      const html = renderDocument(LeaderboardPage({ startMs: board.window.startMs, endMs: board.window.endMs, behind: board.behind, brands: board.brands }))
      return sendCacheable(request, reply, 'text/html; charset=utf-8', html)
    })

    await app.register(async (json) => {
      // A JSON address answers errors in the API's envelope, not as an HTML page.
      json.setErrorHandler(apiErrorHandler(json))
      json.get('/leaderboard.json', { onRequest: limit }, async (request, reply) => {
        const board = await readLeaderboard()
        const body = JSON.stringify({
          window_start: new Date(board.window.startMs).toISOString(),
          window_end: new Date(board.window.endMs).toISOString(),
          brands: board.brands.map((b) => ({ brand: b.brand, impressions: b.impressions })),
        })
        return sendCacheable(request, reply, 'application/json; charset=utf-8', body)
      })
    })
  }
}
