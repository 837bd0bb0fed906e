/**
 * Lengths count user-perceived characters (grapheme clusters) after trimming
 * (operations.md section 6), so an emoji with modifiers counts as one.
 */
const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' })

export function graphemeLength(text: string): number {
  return [...segmenter.segment(text)].length
}

// C0/C1 controls plus bidirectional overrides and isolates, which could make a
// line render differently from how it reads in the store.
const CONTROL = /[\p{Cc}\u202A-\u202E\u2066-\u2069\u2028\u2029]/u

export function hasControlCharacters(text: string): boolean {
  return CONTROL.test(text)
}

export type TextProblem = 'too_short' | 'too_long' | 'control_characters' | 'empty'

/** Checks a trimmed display string against a grapheme-length range. */
export function checkDisplayText(text: string, min: number, max: number): TextProblem | null {
  if (hasControlCharacters(text)) return 'control_characters'
  const length = graphemeLength(text)
  if (length === 0 && min > 0) return 'empty'
  if (length < min) return 'too_short'
  if (length > max) return 'too_long'
  return null
}
