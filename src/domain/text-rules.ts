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

// Characters that draw nothing: spaces, zero-width and other default-ignorable
// code points (joiners, variation selectors, fillers), and the blank braille cell.
const INVISIBLE = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]*$/u

/** True when a grapheme cluster draws nothing (a zero-width space, a lone joiner…). */
const invisible = (cluster: string) => INVISIBLE.test(cluster)

/** Grapheme clusters that draw something: a ZWJ emoji sequence is one, a zero-width space none. */
export function visibleLength(text: string): number {
  let n = 0
  for (const { segment } of segmenter.segment(text)) if (!invisible(segment)) n++
  return n
}

/** A non-empty string made only of whitespace and zero-width characters. */
export function isBlank(text: string): boolean {
  return text !== '' && INVISIBLE.test(text)
}

export type TextProblem = 'too_short' | 'too_long' | 'control_characters' | 'empty' | 'blank'

/**
 * Checks a trimmed display string against a grapheme-length range. The
 * minimum counts visible clusters (three zero-width spaces are not a
 * three-character line); the maximum counts every cluster, as stored.
 */
export function checkDisplayText(text: string, min: number, max: number): TextProblem | null {
  if (hasControlCharacters(text)) return 'control_characters'
  if (isBlank(text)) return 'blank'
  const length = graphemeLength(text)
  if (length === 0 && min > 0) return 'empty'
  if (visibleLength(text) < min) return 'too_short'
  if (length > max) return 'too_long'
  return null
}
