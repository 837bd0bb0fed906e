import type { App, RouteDeps } from '../../types.ts'
import { HomePage } from '../../pages/public/home.tsx'
import { renderDocument } from '../../pages/render.ts'
import { sendCacheable } from './cache.ts'

/**
 * `/`: the home page (issue 35). The same for everyone and every request, so
 * it is rendered once and served with an ETag, cacheable for a minute like the
 * leaderboard; it reads nothing, so it spends no rate-limit budget.
 */
export function homeRoutes(_deps: RouteDeps) {
  return async (app: App) => {
    const html = renderDocument(HomePage())
    app.get('/', async (request, reply) => sendCacheable(request, reply, 'text/html; charset=utf-8', html))
  }
}
