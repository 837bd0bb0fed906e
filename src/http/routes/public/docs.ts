import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { App, RouteDeps } from '../../types.ts'
import { DocsPage, DOCS_ASSETS, type DocsOperation } from '../../pages/public/docs.tsx'
import { ApiError } from '../../../domain/errors.ts'
import { etagOf, notModified } from './cache.ts'

interface Asset {
  type: string
  body: Buffer
  etag: string
  gzip: Buffer | null
}

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
const ownAsset = (name: string) => new URL(`../../pages/assets/${name}`, import.meta.url)

/** The API reference's files, all from this origin: Swagger UI from its package (no CDN), and its start-up script and style overrides. */
const FILES: Record<string, { type: string; path: string | URL }> = {
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', path: join(swaggerDir, 'swagger-ui-bundle.js') },
  'swagger-ui.css': { type: 'text/css; charset=utf-8', path: join(swaggerDir, 'swagger-ui.css') },
  'docs.js': { type: 'text/javascript; charset=utf-8', path: ownAsset('docs.js') },
  'docs.css': { type: 'text/css; charset=utf-8', path: ownAsset('docs.css') },
}

function loadAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>()
  for (const [name, file] of Object.entries(FILES)) {
    const body = readFileSync(file.path)
    assets.set(name, { type: file.type, body, etag: etagOf(body), gzip: null })
  }
  return assets
}

interface OpenApiDocument {
  info: { title: string; version: string }
  paths: Record<string, Record<string, { summary?: string }>>
}

/** Every operation of the served description, in its order (the page's list without JavaScript). */
function operationsOf(doc: OpenApiDocument): DocsOperation[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), path, summary: op.summary ?? '' })),
  )
}

/**
 * `/docs`: the OpenAPI description of /v1 rendered for people (Swagger UI),
 * and its files under /docs/assets. The page keeps the pages' strict CSP
 * (scripts and styles from this origin only); Swagger UI's own code needs
 * nothing more (docs/public-pages.md (decision 0206)).
 */
export function docsRoutes(_deps: RouteDeps) {
  return async (app: App) => {
    const assets = loadAssets()

    app.get('/docs', async (_request, reply) => {
      const doc = app.swagger() as unknown as OpenApiDocument
      return reply.page(DocsPage({ title: doc.info.title, version: doc.info.version, operations: operationsOf(doc) }))
    })

    app.get<{ Params: { name: string } }>(`${DOCS_ASSETS}/:name`, async (request, reply) => {
      const asset = assets.get(request.params.name)
      if (!asset) throw new ApiError(404, 'no such file')
      reply.header('etag', asset.etag).header('cache-control', 'public, max-age=300').header('vary', 'accept-encoding')
      if (notModified(request, asset.etag)) return reply.code(304).send()
      reply.type(asset.type)
      if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
        // Swagger UI's bundle is 1.4 MB as text, about 0.4 MB compressed; compressed once, on first use.
        asset.gzip ??= gzipSync(asset.body)
        return reply.header('content-encoding', 'gzip').send(asset.gzip)
      }
      return reply.send(asset.body)
    })
  }
}
