import type { FastifyRequest } from 'fastify'
import { ApiError, tooManyRequests } from '../../domain/errors.ts'
import { checkOperatorToken } from '../../services/operators.ts'
import type { LockoutContext } from '../../services/lockout.ts'

export const INVALID_OPERATOR_TOKEN = 'invalid operator token'
export const TOO_MANY_OPERATOR_TOKENS = 'too many failed operator-token attempts from this address; retry later'

/** The token of an `Authorization: Bearer <token>` header ('' when there is none). */
export function bearerToken(header: string | undefined): string {
  const match = typeof header === 'string' ? /^bearer +(.+)$/i.exec(header) : null
  return match?.[1] ?? ''
}

/**
 * onRequest hook of everything behind the operator token: `Authorization:
 * Bearer <ADMIN_TOKEN>`, compared in constant time; anything else is 401.
 * Wrong tokens count per source address in the `admin` lockout scope; a
 * locked address gets 429 with Retry-After and its token is not compared
 * (services/operators.ts#checkOperatorToken).
 */
export function adminAuth(deps: LockoutContext, token: string) {
  return async function adminAuthHook(request: FastifyRequest): Promise<void> {
    const presented = bearerToken(request.headers.authorization)
    const failOpen = (err: unknown) => request.log.warn({ err }, 'lockout store unavailable; failing open')
    const checked = await checkOperatorToken(deps, token, presented, request.clientAddress, failOpen)
    if (checked.ok) return
    if (checked.reason === 'locked') throw tooManyRequests(checked.retryAfterS, TOO_MANY_OPERATOR_TOKENS)
    throw new ApiError(401, INVALID_OPERATOR_TOKEN)
  }
}
