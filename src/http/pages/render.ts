import type { VNode } from 'preact'
import { renderToString } from 'preact-render-to-string'

/**
 * A page as an HTML document. Preact escapes every text child and attribute
 * value, so data reaches the page as text whatever it holds; nothing here
 * takes raw HTML.
 */
export function renderDocument(page: VNode): string {
  return '<!doctype html>' + renderToString(page)
}

/** A part of a page (a fragment a page's script swaps in), escaped the same way. */
export function renderFragment(part: VNode): string {
  return renderToString(part)
}
