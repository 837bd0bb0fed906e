import { createHash, randomBytes } from 'node:crypto'
import { newSessionDeadlines, sessionLive, touchedIdleDeadline } from '../domain/sign-in.ts'
import { deleteSession, findSession, insertSession, touchSession, type SessionSubjectKind } from '../store/logins.ts'
import type { ServiceContext } from './context.ts'

/**
 * Sessions of the portal and the console (docs/security.md (decision 0181)): kept
 * in the store, each under a random token the cookie carries, of which only the digest is stored,
 * with an idle and an absolute deadline. Emailed password links (password-links.ts) are tokens of
 * the same kind.
 */

/** The digest stored for a token (a session's, an emailed link's). */
export const tokenDigest = (token: string) => createHash('sha256').update(token, 'utf8').digest()
/** A new random token: 32 bytes, base64url. */
export const newToken = () => randomBytes(32).toString('base64url')

/** Starts a session for a subject and returns the cookie's token (only its digest is stored). */
export async function startSession(ctx: ServiceContext, kind: SessionSubjectKind, subjectId: string): Promise<string> {
  const token = newToken()
  const now = ctx.clock.now()
  await insertSession(ctx.db, { token_hash: tokenDigest(token), subject_kind: kind, subject_id: subjectId, created_at: now, ...newSessionDeadlines(now) })
  return token
}

/** The subject of a live session, pushing its idle deadline forward; null when unknown or ended. */
export async function readSession(ctx: ServiceContext, kind: SessionSubjectKind, token: string | undefined): Promise<string | null> {
  if (!token || token.length > 100) return null
  const hash = tokenDigest(token)
  const session = await findSession(ctx.db, hash, kind)
  const now = ctx.clock.now()
  if (!session || !sessionLive(session, now)) return null
  const idle = touchedIdleDeadline(session, now)
  if (idle) await touchSession(ctx.db, hash, idle)
  return session.subject_id
}

export async function endSession(ctx: ServiceContext, token: string | undefined): Promise<void> {
  if (token && token.length <= 100) await deleteSession(ctx.db, tokenDigest(token))
}
