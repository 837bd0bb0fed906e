import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { Static, TSchema } from 'typebox'
import { ErrorBody } from './schemas/common.ts'
import { validationDetail, type AjvError } from './plugins/errors.ts'
import { isTimestamp } from '../domain/timestamps.ts'
import type { FieldDetail } from '../domain/errors.ts'

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv

/**
 * Bodies are validated strictly (a string is never coerced into a number);
 * query strings and path parameters are text and may be coerced. Every
 * `date-time` is read by the service's own rule (no leap second, years
 * 0001-9999), so a timestamp the schema accepts is one the service can use.
 */
export function validators() {
  const base = { allErrors: false, removeAdditional: false, useDefaults: false, strict: false } as const
  const body = addFormats(new Ajv({ ...base, coerceTypes: false }))
  const params = addFormats(new Ajv({ ...base, coerceTypes: 'array' }))
  for (const ajv of [body, params]) {
    ajv.addSchema(ErrorBody)
    ajv.addFormat('date-time', { type: 'string', validate: isTimestamp })
  }
  return { body, params }
}

/**
 * One pair for every app of the process and for the console's forms: Ajv keeps each
 * compiled schema, keyed by the schema object, so a route schema compiles once per
 * process however many apps a process builds (the tests start several).
 */
export const routeValidators = validators()
const bodies = routeValidators.body

/** A console form's body once checked: typed by the schema that accepted it, or the first problem. */
export type CheckedBody<S extends TSchema> = { ok: true; body: Static<S> } | { ok: false; problem: FieldDetail }

/**
 * Checks a console form, once turned into the operator API's body, against
 * that operation's own body schema: the console refuses what the API
 * refuses, with the same `{field, reason, ...}`, and no rule is restated in
 * a page. A valid body comes back typed by the schema (Ajv's validator is a
 * type guard; Ajv keeps each schema compiled, keyed by the schema object).
 */
export function checkBody<S extends TSchema>(schema: S, body: unknown): CheckedBody<S> {
  const validate = bodies.compile<Static<S>>(schema)
  if (validate(body)) return { ok: true, body }
  const [first] = (validate.errors ?? []) as AjvError[]
  return { ok: false, problem: first ? validationDetail(first, 'body', 'unknown_field') : { field: 'body', reason: 'invalid' } }
}
