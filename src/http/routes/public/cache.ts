import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Shared caches may keep a public page for a minute (the leaderboard changes once a day). */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=60'

/** A strong validator of a body: its SHA-256, shortened. */
export const etagOf = (body: string | Buffer): string => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`

/** If-None-Match holds `etag` (or `*`); weak comparison, as RFC 9110 asks for this header. */
export function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match']
  if (header === undefined) return false
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/** Sends `body` with its ETag and `cacheControl`, or 304 with no body when the client already has it. */
export function sendCacheable(request: FastifyRequest, reply: FastifyReply, type: string, body: string, cacheControl = PUBLIC_CACHE_CONTROL) {
  const etag = etagOf(body)
  reply.header('etag', etag).header('cache-control', cacheControl)
  if (notModified(request, etag)) return reply.code(304).send()
  return reply.type(type).send(body)
}
