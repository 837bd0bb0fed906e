// @ts-check
/**
 * The printed line: pure functions of a decision and the settings (no I/O), so they are
 * tested without a terminal.
 */
import { adText, clickUrl, MIN_AD_COLUMNS, SEPARATOR } from '@thinking-line/ad-client/decision'
import { displayWidth, sanitize, truncateToWidth } from '@thinking-line/ad-client/text'

/** @typedef {import('@thinking-line/ad-client/decision').Decision} Decision */

export { adText, MIN_AD_COLUMNS, SEPARATOR }

/**
 * Text from the service or stdin as plain text for the terminal (ad-client's text.js#sanitize): controls become
 * spaces; direction marks, zero-width and tag characters are removed.
 * @param {string} text
 */
export function plain(text) {
  return sanitize(text)
}

/**
 * The prefix template with `{model.display_name}` and `{workspace.current_dir}` replaced from the
 * tool's stdin JSON (empty when absent); other text is kept as written.
 * @param {string} template
 * @param {unknown} input the parsed stdin JSON, or null
 */
export function renderPrefix(template, input) {
  return template.replace(/\{(model\.display_name|workspace\.current_dir)\}/g, (_, path) => {
    /** @type {unknown} */
    let value = input
    for (const key of String(path).split('.')) {
      value = value !== null && typeof value === 'object' ? /** @type {Record<string, unknown>} */ (value)[key] : undefined
    }
    return typeof value === 'string' || typeof value === 'number' ? String(value) : ''
  })
}

/** An OSC 8 hyperlink (terminals without support show the text alone). @param {string} url @param {string} text */
export function hyperlink(url, text) {
  return `\u001b]8;;${url}\u001b\\${text}\u001b]8;;\u001b\\`
}

/**
 * What fits in `maxColumns` (null: everything): the prefix first and whole when it can be, then as
 * much of the ad as fits, cut with an ellipsis. An ad with less than MIN_AD_COLUMNS left is not
 * shown at all (never a line that cuts its disclosure); the prefix alone is then cut to fit.
 * @param {string} head @param {string | null} ad @param {number | null} maxColumns
 * @returns {{ head: string, ad: string | null }}
 */
export function fitLine(head, ad, maxColumns) {
  if (maxColumns === null) return { head, ad }
  const before = head ? displayWidth(head) + displayWidth(SEPARATOR) : 0
  if (ad !== null && maxColumns - before >= MIN_AD_COLUMNS) return { head, ad: truncateToWidth(ad, maxColumns - before) }
  return { head: truncateToWidth(head, maxColumns), ad: null }
}

/**
 * The one line printed: prefix, separator and ad; the prefix alone without an ad; cut to
 * `maxColumns` display columns when set (`fitLine`); an OSC 8 link to the click URL unless `links`
 * is off; tmux's `#` doubled (after measuring: tmux draws `##` as one column).
 * @param {{ prefix: string, ad: Decision | null, tmux: boolean, links: boolean, maxColumns?: number | null }} o
 */
export function formatLine({ prefix, ad, tmux, links, maxColumns = null }) {
  const escape = tmux ? (/** @type {string} */ s) => s.replace(/#/g, '##') : (/** @type {string} */ s) => s
  const fitted = fitLine(plain(prefix), ad ? adText(ad) : null, maxColumns)
  const head = escape(fitted.head)
  if (!ad || fitted.ad === null) return head
  let text = escape(fitted.ad)
  const url = clickUrl(ad)
  if (links && !tmux && url !== null) text = hyperlink(url, text)
  return head ? `${head}${SEPARATOR}${text}` : text
}
