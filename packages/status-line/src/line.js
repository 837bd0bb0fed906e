// @ts-check
/**
 * The printed line: pure functions of a decision and the settings (no I/O), so they are
 * tested without a terminal.
 */

/** @typedef {{ impression_id: string, ad_line: string, brand: string | null, icon_url?: string | null, view_url?: string, click_url: string }} Decision */

export const SEPARATOR = ' · '

/** Control characters (C0, DEL, C1) never reach the terminal: ad text is plain text, and a prefix may come from stdin. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/** @param {string} text */
export function plain(text) {
  return text.replace(CONTROL, ' ')
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

/** The ad as disclosed: `Ad · {brand} · {ad_line}`, or `Ad · {ad_line}` without a brand. @param {Decision} ad */
export function adText(ad) {
  return ad.brand ? `Ad${SEPARATOR}${plain(ad.brand)}${SEPARATOR}${plain(ad.ad_line)}` : `Ad${SEPARATOR}${plain(ad.ad_line)}`
}

/** An OSC 8 hyperlink (terminals without support show the text alone). @param {string} url @param {string} text */
export function hyperlink(url, text) {
  return `\u001b]8;;${url}\u001b\\${text}\u001b]8;;\u001b\\`
}

/**
 * The one line printed: prefix, separator and ad; the prefix alone without an ad; an OSC 8 link
 * to the click URL unless `links` is off; tmux's `#` doubled.
 * @param {{ prefix: string, ad: Decision | null, tmux: boolean, links: boolean }} o
 */
export function formatLine({ prefix, ad, tmux, links }) {
  const escape = tmux ? (/** @type {string} */ s) => s.replace(/#/g, '##') : (/** @type {string} */ s) => s
  const head = escape(plain(prefix))
  if (!ad) return head
  let text = escape(adText(ad))
  const url = plain(ad.click_url)
  if (links && !tmux && /^https?:\/\//.test(url)) text = hyperlink(url, text)
  return head ? `${head}${SEPARATOR}${text}` : text
}
