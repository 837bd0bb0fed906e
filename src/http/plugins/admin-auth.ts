import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../../domain/errors.ts'

const digest = (s: string) => createHash('sha256').update(s).digest()

/** Bearer ADMIN_TOKEN, compared in constant time; anything else is 401. */
export function adminAuth(token: string) {
  const expected = digest(token)
  return async function adminAuthHook(request: FastifyRequest): Promise<void> {
    const header = request.headers.authorization
    const match = typeof header === 'string' ? /^bearer +(.+)$/i.exec(header) : null
    const presented = match?.[1] ?? ''
    if (!timingSafeEqual(digest(presented), expected)) throw new ApiError(401, 'invalid operator token')
  }
}
