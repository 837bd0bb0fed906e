import type { App, RouteDeps } from '../../types.ts'
import { homeRoutes } from './home.ts'
import { leaderboardRoutes } from './leaderboard.ts'
import { statusPageRoutes } from './status.ts'
import { docsRoutes } from './docs.ts'
import { publicReportRoutes } from './report.ts'
import { notFoundPageRoutes } from './not-found.ts'
import { transparencyRoutes } from './transparency.ts'

/**
 * The public pages (operations.md section 5, issue 22) and the home page `/`
 * (issue 35): no sign-in, no
 * cookies (no CSRF token is ever made here), no account data, no telemetry.
 * Registered inside the web pages' context for its security headers, shared
 * stylesheet and HTML error pages. The preview pages (routes/pages.ts) sit
 * beside these.
 */
export function publicRoutes(deps: RouteDeps) {
  return async (app: App) => {
    for (const routes of [homeRoutes, leaderboardRoutes, statusPageRoutes, docsRoutes, publicReportRoutes, transparencyRoutes]) await app.register(routes(deps))
    // Last: any other path a browser asks for (not-found.ts).
    await app.register(notFoundPageRoutes())
  }
}
