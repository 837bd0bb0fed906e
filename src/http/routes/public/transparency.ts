import { Type, type Static } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { TransparencyPage } from '../../pages/public/transparency.tsx'
import { renderDocument } from '../../pages/render.ts'
import { apiErrorHandler } from '../../plugins/errors.ts'
import { limitByAddress } from '../../plugins/auth.ts'
import { STATUS_RATE_PER_MIN } from '../v1/status.ts'
import { readTreeHeads, TRANSPARENCY_DAYS } from '../../../services/ledger-days.ts'
import { sendCacheable } from './cache.ts'
import { publishedIssuer } from '../../../services/attestation.ts'

const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' })
const RangeQuery = Type.Object({ from: Type.Optional(Day), to: Type.Optional(Day) }, { additionalProperties: false })

/**
 * `/transparency` and `/transparency.json` (issue 39): the heads of the closed days' ledger trees, the
 * public log an advertiser's inclusion proof is checked against. No account data. Cacheable for a
 * minute with an ETag; both spend the per-address budget of the public reads (GET /v1/status).
 */
export function transparencyRoutes(deps: RouteDeps) {
  return async (app: App) => {
    const limit = limitByAddress(deps, STATUS_RATE_PER_MIN)

    app.get('/transparency', { onRequest: limit }, async (request, reply) => {
      const [{ heads, closedThrough }, issuer] = await Promise.all([readTreeHeads(deps), publishedIssuer(deps, deps.attestation)])
      const html = renderDocument(
        TransparencyPage({
          closedThrough,
          heads: heads.map((h) => ({ date: h.day, treeSize: h.tree_size, rootHash: h.root_hash, closedAt: h.sealed_at })),
          shown: TRANSPARENCY_DAYS,
          issuerKeys: issuer.issuer_keys,
        }),
      )
      return sendCacheable(request, reply, 'text/html; charset=utf-8', html)
    })

    await app.register(async (json) => {
      // A JSON address answers errors in the API's envelope, not as an HTML page.
      json.setErrorHandler(apiErrorHandler(json))
      json.get('/transparency.json', { onRequest: limit, schema: { querystring: RangeQuery, hide: true } }, async (request, reply) => {
        const { from, to } = request.query as Static<typeof RangeQuery>
        const [{ heads, closedThrough }, issuer] = await Promise.all([
          readTreeHeads(deps, { from: from ?? '0001-01-01', to: to ?? '9999-12-31' }),
          publishedIssuer(deps, deps.attestation),
        ])
        const body = JSON.stringify({
          hash: 'sha256',
          tree: 'rfc6962',
          leaf: 'enc(user_id) || day_root',
          closed_through: closedThrough,
          heads: heads.map((h) => ({ date: h.day, tree_size: h.tree_size, root_hash: h.root_hash, closed_at: h.sealed_at.toISOString() })),
          // Privacy Pass (docs/attestation.md): the challenge every token is made for and every issuer key ever used,
          // so that anyone can check the attestation tokens of a ledger-export-v4 file.
          ...issuer,
        })
        return sendCacheable(request, reply, 'application/json; charset=utf-8', body)
      })
    })
  }
}
