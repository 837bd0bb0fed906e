// @ts-check
/**
 * Text from elsewhere (the service's ad line and brand, a prefix from stdin) made safe to print on
 * one terminal line, and measured in terminal columns. Pure functions over strings, no I/O and no
 * state, so they can move into a shared client core as they are.
 */

/** Controls (C0, DEL, C1) and the line and paragraph separators: each becomes a space. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

/**
 * Characters that draw nothing but reorder the line or hide a message: direction marks, embeddings,
 * overrides and isolates (U+061C, U+200E, U+200F, U+202A–202E, U+2066–2069), the zero-width space
 * U+200B, the word joiner and invisible operators U+2060–2064, U+206A–206F, the BOM U+FEFF and the
 * tag characters U+E0000–E007F. They are removed; so is a zero-width joiner that does not join two
 * pictographs of an emoji. The service refuses them in new ad lines (`invisible_characters`); a
 * client strips them whatever a server sends.
 */
const HIDDEN = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF\u{E0000}-\u{E007F}]/u
const ZWJ = '\u200D'
/** The three subdivision flags Unicode recommends (England, Scotland, Wales): their tag characters are the flag. */
const SUBDIVISION_FLAG = /^\u{1F3F4}(?:\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}|\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}|\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073})\u{E007F}/u
const PICTOGRAPH = /\p{Extended_Pictographic}/u
// What may stand between a pictograph and its joiner: the emoji presentation selector and skin tones.
/** @param {string} ch */
const emojiExtend = (ch) => {
  const cp = /** @type {number} */ (ch.codePointAt(0))
  return cp === 0xfe0f || (cp >= 0x1f3fb && cp <= 0x1f3ff)
}

/**
 * `text` as one line of plain text: controls become spaces, hidden characters are removed.
 * @param {string} text
 */
export function sanitize(text) {
  const points = [...text.replace(CONTROL, ' ')]
  /** @type {string[]} */
  const kept = []
  for (let i = 0; i < points.length; i++) {
    const ch = /** @type {string} */ (points[i])
    if (ch === '\u{1F3F4}') {
      const flag = SUBDIVISION_FLAG.exec(points.slice(i, i + 7).join(''))
      if (flag) {
        kept.push(flag[0])
        i += [...flag[0]].length - 1
        continue
      }
    }
    if (HIDDEN.test(ch)) continue
    if (ch === ZWJ && !joinsEmoji(kept, points[i + 1])) continue
    kept.push(ch)
  }
  return kept.join('')
}

/**
 * Does a joiner after `kept` and before `next` sit between two pictographs (👩‍💻)?
 * @param {readonly string[]} kept @param {string | undefined} next
 */
function joinsEmoji(kept, next) {
  let i = kept.length - 1
  while (i >= 0 && emojiExtend(/** @type {string} */ (kept[i]))) i--
  return i >= 0 && PICTOGRAPH.test(/** @type {string} */ (kept[i])) && next !== undefined && PICTOGRAPH.test(next)
}

/** @type {Intl.Segmenter | null} */
let segmenter = null
/** Grapheme clusters, with the segmenter made on first use (most invocations print ASCII only). @param {string} text */
function clusters(text) {
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' })
  return segmenter.segment(text)
}
/** Printable ASCII: one column per character, no segmenting needed. */
const ASCII = /^[\x20-\x7e]*$/

/**
 * East Asian Wide and Fullwidth blocks outside emoji (Unicode's EastAsianWidth.txt, W and F, by
 * block): Hangul leading jamo, CJK radicals to compatibility, ideographs and their extensions, Yi,
 * Hangul syllables, CJK compatibility ideographs and forms, fullwidth forms, Tangut, Kana supplements.
 * @type {readonly [number, number][]}
 */
const WIDE = [
  [0x1100, 0x115f],
  [0x2329, 0x232a],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x16fe4],
  [0x17000, 0x18cff],
  [0x1b000, 0x1b2ff],
  [0x1f200, 0x1f2ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
]

const EMOJI_PRESENTATION = /\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F|\p{Regional_Indicator}|\u20E3/u
const ZERO_WIDTH = /^[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]*$/u

/** @param {number} cp */
const isWide = (cp) => WIDE.some(([from, to]) => cp >= from && cp <= to)

/**
 * The columns one grapheme cluster takes: 2 for an emoji drawn as emoji (a ZWJ sequence, a flag, a
 * keycap, a pictograph with U+FE0F) and for East Asian wide and fullwidth characters, 0 for one that draws
 * nothing (marks and format characters alone), else 1.
 * @param {string} cluster
 */
export function clusterWidth(cluster) {
  if (cluster === '' || ZERO_WIDTH.test(cluster)) return 0
  if (EMOJI_PRESENTATION.test(cluster)) return 2
  return isWide(/** @type {number} */ (cluster.codePointAt(0))) ? 2 : 1
}

/**
 * The columns `text` takes on a terminal, cluster by cluster.
 * @param {string} text
 */
export function displayWidth(text) {
  if (ASCII.test(text)) return text.length
  let width = 0
  for (const { segment } of clusters(text)) width += clusterWidth(segment)
  return width
}

export const ELLIPSIS = '…'

/**
 * `text` cut to at most `columns` columns, never inside a grapheme cluster (an emoji sequence stays
 * whole or goes), ending in an ellipsis (after no space) when anything was cut. Unchanged when it fits.
 * @param {string} text @param {number} columns
 */
export function truncateToWidth(text, columns) {
  if (displayWidth(text) <= columns) return text
  if (columns < 1) return ''
  let out = ''
  let width = 0
  for (const { segment } of clusters(text)) {
    const w = clusterWidth(segment)
    if (width + w > columns - 1) break
    out += segment
    width += w
  }
  // A space before the ellipsis reads as a gap, not a cut.
  return `${out.replace(/ +$/, '')}${ELLIPSIS}`
}

/**
 * THINKING_LINE_MAX_COLUMNS as a positive whole number of columns, or null (unset, or not one:
 * then nothing is cut).
 * @param {string | undefined} value
 */
export function parseColumns(value) {
  if (value === undefined || !/^\s*\d+\s*$/.test(value)) return null
  const n = Number(value)
  return n >= 1 && Number.isSafeInteger(n) ? n : null
}
