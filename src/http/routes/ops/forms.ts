import type { Static, TSchema } from 'typebox'
import { ApiError } from '../../../domain/errors.ts'
import { checkBody } from '../../validation.ts'
import { errorsOf, type FieldErrors } from '../../pages/ops/messages.ts'

/**
 * How a console form reaches an operator use case: its text becomes the
 * operator API's body, the API's own schema checks it, the same audited use
 * case runs, and a refusal comes back as errors to show next to the fields.
 */
export type Attempt<T> = { ok: true; value: T } | { ok: false; status: number; errors: FieldErrors }

/** Runs `run`; a 4xx refusal becomes field errors. */
export async function attempt<T>(run: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { ok: true, value: await run() }
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500) return { ok: false, status: err.status, errors: errorsOf(err.detail) }
    throw err
  }
}

/** Checks `body` against the operator API's `schema` first, then runs `run` with the body as that schema types it; a refusal becomes field errors. */
export async function attemptBody<S extends TSchema, T>(schema: S, body: unknown, run: (body: Static<S>) => Promise<T>): Promise<Attempt<T>> {
  const checked = checkBody(schema, body)
  if (!checked.ok) return { ok: false, status: 400, errors: errorsOf(checked.problem) }
  return attempt(() => run(checked.body))
}

/** Form text as the JSON value a client would send: a whole number, a number, a boolean, or the text itself (which the schema then refuses). */
export function integerOf(text: string): number | string {
  const t = text.trim()
  return /^-?\d{1,16}$/.test(t) ? Number(t) : t
}

export function numberOf(text: string): number | string {
  const t = text.trim()
  return /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(t) && Number.isFinite(Number(t)) ? Number(t) : t
}

export function booleanOf(text: string): boolean | string {
  return text === 'true' ? true : text === 'false' ? false : text
}
