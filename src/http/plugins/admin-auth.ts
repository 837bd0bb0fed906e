import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../../domain/errors.ts'

const digest = (s: string) => createHash('sha256').update(s).digest()

/**
 * The operator-token check itself: true when an Authorization header is
 * `Bearer ADMIN_TOKEN`, compared in constant time. Shared by the operator API,
 * `/metrics` and the worker's `/metrics` (plain node:http).
 */
export function operatorTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token)
  return (header) => {
    const match = typeof header === 'string' ? /^bearer +(.+)$/i.exec(header) : null
    const presented = match?.[1] ?? ''
    return timingSafeEqual(digest(presented), expected)
  }
}

export const INVALID_OPERATOR_TOKEN = 'invalid operator token'

/** Bearer ADMIN_TOKEN, compared in constant time; anything else is 401. */
export function adminAuth(token: string) {
  const valid = operatorTokenCheck(token)
  return async function adminAuthHook(request: FastifyRequest): Promise<void> {
    if (!valid(request.headers.authorization)) throw new ApiError(401, INVALID_OPERATOR_TOKEN)
  }
}
