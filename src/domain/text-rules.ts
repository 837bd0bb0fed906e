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

/**
 * What a field of N characters may hold besides its N grapheme clusters, so that a "60-character"
 * line cannot be 20 KB of combining marks, tag characters or skin-tone modifiers. The caps are N of
 * the longest emoji sequence Unicode recommends (👩🏽‍❤️‍💋‍👨🏻, a kiss with two skin tones: 10
 * code points, 35 bytes of UTF-8), so every line of real emoji, flags and ZWJ sequences that fits
 * in N characters fits in them too.
 */
export const CODE_POINTS_PER_CHARACTER = 10
export const BYTES_PER_CHARACTER = 35
/**
 * Combining marks stacked on one character. Vietnamese takes two, pointed Hebrew and Thai three,
 * a keycap emoji two (its variation selector and the enclosing keycap); "Zalgo" text takes
 * hundreds. Counted per base character, not per cluster: an Indic conjunct (क्ष्म्य) is one
 * cluster of several consonants, each with its own virama.
 */
export const MAX_COMBINING_MARKS = 4

export type TextProblem = 'too_short' | 'too_long' | 'control_characters' | 'empty' | 'blank' | 'too_many_combining_marks' | 'invisible_characters'

const MARK = /\p{M}/u
// Joiners, tags and other characters that draw nothing: marks after them still stack on the same base.
const NOT_A_BASE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u

/** The caps of a field of at most `max` characters (grapheme clusters). */
export function textCaps(max: number) {
  return { max_length: max, max_code_points: max * CODE_POINTS_PER_CHARACTER, max_bytes: max * BYTES_PER_CHARACTER }
}

/** True when `text` has more code points or UTF-8 bytes than a field of `max` characters may. */
export function overCaps(text: string, max: number): boolean {
  const caps = textCaps(max)
  // A UTF-16 length over twice the cap is over it in code points too: no need to read further.
  if (text.length > 2 * caps.max_code_points) return true
  let points = 0
  let bytes = 0
  for (const ch of text) {
    const cp = ch.codePointAt(0)!
    points++
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
  }
  return points > caps.max_code_points || bytes > caps.max_bytes
}

/** True when some character carries more than MAX_COMBINING_MARKS combining marks. */
export function hasStackedMarks(text: string): boolean {
  if (!MARK.test(text)) return false
  let run = 0
  for (const ch of text) {
    if (MARK.test(ch)) {
      if (++run > MAX_COMBINING_MARKS) return true
    } else if (!NOT_A_BASE.test(ch)) run = 0
  }
  return false
}

/**
 * Checks a trimmed display string against a grapheme-length range. The
 * minimum counts visible clusters (three zero-width spaces are not a
 * three-character line); the maximum counts every cluster, as stored, and
 * the code points, UTF-8 bytes and stacked marks behind them (textCaps,
 * MAX_COMBINING_MARKS). Sizes are checked before the text is segmented, so
 * the work done on a hostile string is bounded by the caps.
 */
export function checkDisplayText(text: string, min: number, max: number): TextProblem | null {
  if (hasControlCharacters(text)) return 'control_characters'
  if (isBlank(text)) return 'blank'
  if (overCaps(text, max)) return 'too_long'
  if (hasStackedMarks(text)) return 'too_many_combining_marks'
  const length = graphemeLength(text)
  if (length === 0 && min > 0) return 'empty'
  if (visibleLength(text) < min) return 'too_short'
  if (length > max) return 'too_long'
  return null
}

/**
 * Characters that draw nothing and carry something: a hidden message (tag characters spell ASCII,
 * about 400 of them fit in a 60-character line) or a reordering (direction marks). Refused in the
 * text a viewer is shown (ad line, brand): U+E0000–E007F (tags), U+200B (zero-width space), U+200E,
 * U+200F, U+061C (direction marks), U+2060–2064 (word joiner, invisible operators), U+206A–206F
 * (deprecated format controls), U+FEFF (BOM). The bidirectional overrides and isolates are already
 * `control_characters`. Zero-width joiners and non-joiners, variation selectors and combining
 * marks draw as part of what they join, so only a misplaced joiner counts (`misplacedJoiner`).
 */
const HIDDEN = /[\u{E0000}-\u{E007F}\u200B\u200E\u200F\u061C\u2060-\u2064\u206A-\u206F\uFEFF]/u
const ZWJ = 0x200d
/** The three subdivision flags Unicode recommends (England, Scotland, Wales): a black flag, tags, a cancel tag. */
const SUBDIVISION_FLAG = /\u{1F3F4}(?:\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}|\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}|\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073})\u{E007F}/gu
const PICTOGRAPH = /\p{Extended_Pictographic}/u
// What may stand between a pictograph and its joiner: the emoji presentation selector and skin tones.
const emojiExtend = (ch: string) => {
  const cp = ch.codePointAt(0)!
  return cp === 0xfe0f || (cp >= 0x1f3fb && cp <= 0x1f3ff)
}

/** True when the joiner at `i` of `points` is not inside an emoji ZWJ sequence (a pictograph on each side). */
function misplacedJoiner(points: readonly string[], i: number): boolean {
  let before = i - 1
  while (before >= 0 && emojiExtend(points[before]!)) before--
  return before < 0 || !PICTOGRAPH.test(points[before]!) || i + 1 >= points.length || !PICTOGRAPH.test(points[i + 1]!)
}

/**
 * The first invisible character of `text` as `U+XXXX` (see HIDDEN), or null. A zero-width joiner
 * counts unless it joins two pictographs of an emoji sequence (👩‍💻, 🏳️‍🌈); tag characters count
 * unless they spell one of the recommended subdivision flags (🏴󠁧󠁢󠁳󠁣󠁴󠁿).
 */
export function findInvisibleCharacter(text: string): string | null {
  const rest = text.replace(SUBDIVISION_FLAG, '\u{1F3F4}')
  if (!HIDDEN.test(rest) && !rest.includes('\u200D')) return null
  const points = [...rest]
  for (let i = 0; i < points.length; i++) {
    const cp = points[i]!.codePointAt(0)!
    if (HIDDEN.test(points[i]!) || (cp === ZWJ && misplacedJoiner(points, i))) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`
  }
  return null
}

/**
 * The facts a 400 carries with a display-text reason: the bounds of the field, and for `too_long`
 * and `too_many_combining_marks` the caps behind them.
 */
export function displayTextFacts(problem: TextProblem, min: number | null, max: number): Record<string, number> {
  const bounds: Record<string, number> = min === null ? { max_length: max } : { min_length: min, max_length: max }
  if (problem === 'too_long') return { ...bounds, ...textCaps(max) }
  if (problem === 'too_many_combining_marks') return { ...bounds, max_combining_marks: MAX_COMBINING_MARKS }
  return bounds
}
