import { isBlank } from './text-rules.ts'

/**
 * Rules every value a client sends must meet, whatever the field: applied
 * once at the edge to each string and number of a body, query string and
 * path (src/http/plugins/input-guard.ts), before anything reaches a rule,
 * the store or a log.
 *
 * - Text is well-formed Unicode (no lone surrogates: PostgreSQL cannot store
 *   them and a JSON encoder would silently turn them into U+FFFD) without
 *   C0/C1 control characters (NUL is refused by PostgreSQL; the others are
 *   never legitimate in any field of this API), and not only whitespace or
 *   zero-width characters.
 * - Numbers are finite (`1e309` parses to Infinity, which JSON cannot even
 *   write back) and exact integers stay within 2^53 so that every figure
 *   survives a round trip through the store and JSON.
 */
export type InputReason = 'invalid_unicode' | 'control_characters' | 'blank' | 'not_finite' | 'out_of_range'

export interface InputProblem {
  field: string
  reason: InputReason
}

const CONTROL = /\p{Cc}/u
// In a `u` regex a surrogate pair is one code point, so only a lone surrogate is `Cs`.
const LONE_SURROGATE = /\p{Cs}/u

export function textProblem(text: string): InputReason | null {
  if (LONE_SURROGATE.test(text)) return 'invalid_unicode'
  if (CONTROL.test(text)) return 'control_characters'
  if (isBlank(text)) return 'blank'
  return null
}

export function numberProblem(n: number): InputReason | null {
  if (!Number.isFinite(n)) return 'not_finite'
  if (Math.abs(n) > Number.MAX_SAFE_INTEGER) return 'out_of_range'
  return null
}

/**
 * The first problem in a parsed input, named like schema errors
 * (`target_countries.0`); object keys are text too. `prefix` names the root.
 */
export function findInputProblem(value: unknown, prefix = ''): InputProblem | null {
  const at = (key: string) => (prefix === '' ? key : `${prefix}.${key}`)
  if (typeof value === 'string') {
    const reason = textProblem(value)
    return reason ? { field: prefix, reason } : null
  }
  if (typeof value === 'number') {
    const reason = numberProblem(value)
    return reason ? { field: prefix, reason } : null
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const problem = findInputProblem(value[i], at(String(i)))
      if (problem) return problem
    }
    return null
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const keyReason = textProblem(key)
      if (keyReason) return { field: at(key), reason: keyReason }
      const problem = findInputProblem(item, at(key))
      if (problem) return problem
    }
  }
  return null
}
