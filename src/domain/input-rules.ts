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
 * - A JSON body nests arrays and objects at most MAX_JSON_DEPTH deep.
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

/**
 * How deep a JSON body may nest arrays and objects. The deepest body any
 * operation takes is 2 levels (an object holding a list, such as a campaign's
 * `target_countries`); 32 leaves room for any later schema. Without a bound, `[[[…]]]` 10,000 deep parses
 * and then overflows the call stack of every walk over it (the schema
 * validator's, findInputProblem's): a 500 instead of a 400.
 */
export const MAX_JSON_DEPTH = 32

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d

/**
 * Whether JSON text opens more than `max` arrays and objects inside each
 * other. One pass over the text, no recursion, brackets inside strings
 * skipped; run before parsing, so nothing deeper is ever built. Text that is
 * not JSON may pass: the parser refuses it next.
 */
export function exceedsJsonDepth(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > max) return true
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--
  }
  return false
}
