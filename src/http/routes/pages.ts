import type { App, RouteDeps } from '../types.ts'
import { PREVIEW_PAGE_CSP, renderPreviewGonePage, renderPreviewPage } from '../pages/preview-page.ts'
import { readPublicPreview } from '../../services/previews.ts'

/** Public HTML pages (operations.md section 5). */
export function pageRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get<{ Params: { token: string } }>('/preview/:token', { schema: { hide: true } }, async (request, reply) => {
      const { token } = request.params
      const preview = await readPublicPreview(deps, token)
      reply
        .header('content-security-policy', PREVIEW_PAGE_CSP)
        .header('referrer-policy', 'no-referrer')
        .header('x-robots-tag', 'noindex')
        .header('cache-control', 'private, no-store')
        .type('text/html; charset=utf-8')
      if (preview.state !== 'live') {
        return reply.code(preview.state === 'not_found' ? 404 : 410).send(renderPreviewGonePage(preview.state))
      }
      const p = preview.row
      return renderPreviewPage({
        adLine: p.ad_line,
        brand: p.brand,
        iconUrl: p.icon_url,
        destinationUrl: p.destination_url,
        targetSurface: p.target_surface,
        expiresAt: p.expires_at,
      })
    })
  }
}
