import assert from 'node:assert/strict'

/**
 * Reading the service's HTML pages the way a person (or a screen reader)
 * would, without a browser: the text, the form controls and what they show,
 * the field errors, the labels, the buttons and the charts' data tables.
 * The markup is the pages' own (src/http/pages: forms.tsx `Field`,
 * choice-fields.tsx, chart.tsx).
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", apos: "'" }

/** The text of HTML-escaped markup, unescaped (in one pass: `&amp;lt;` is `&lt;`). */
export const decode = (text: string) => text.replace(/&(amp|lt|gt|quot|#39|#x27|apos);/g, (_, e: string) => ENTITIES[e]!)

/** The text of a page or fragment: no script or style, tags removed, entities decoded, whitespace collapsed. */
export function visibleText(html: string): string {
  return decode(html.replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
}

/** The CSRF token of the page's forms (every form of a page carries the same one). */
export function csrfToken(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html)
  assert.ok(m, `the page has a form with a CSRF token: ${visibleText(html).slice(0, 200)}`)
  return m[1]!
}

/** The opening tag of the form control named `name` (input, select, textarea). */
export function control(html: string, name: string): string {
  const m = new RegExp(`<(?:input|select|textarea)\\b[^>]*\\bname="${name}"[^>]*>`).exec(html)
  assert.ok(m, `a control named ${name}`)
  return m[0]
}

/** An attribute's value; a bare attribute (`value`, as an empty value is written) is the empty string. */
export function attribute(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}(?:="([^"]*)")?(?=[\\s/>])`).exec(tag)
  return m ? decode(m[1] ?? '') : null
}

/** What an input shows (its value attribute). */
export const inputValue = (html: string, name: string) => attribute(control(html, name), 'value')

/** The selected option of a select. */
export function selectedOption(html: string, name: string): string | null {
  const m = new RegExp(`<select\\b[^>]*\\bname="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)
  assert.ok(m, `a select named ${name}`)
  const option = /<option\b[^>]*\bselected\b[^>]*>/.exec(m[1]!)
  return option ? attribute(option[0], 'value') : null
}

/**
 * The error shown beside the control named `name`, or null: the element the
 * control's aria-describedby names with `-error`, which must say it (so a
 * person using a screen reader hears it at the field), the control marked
 * invalid.
 */
export function fieldError(html: string, name: string): string | null {
  const tag = control(html, name)
  const id = attribute(tag, 'id')
  const described = attribute(tag, 'aria-describedby') ?? ''
  const m = new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(html)
  if (!m) return null
  assert.ok(described.split(' ').includes(`${id}-error`), `the ${name} control is described by its error`)
  assert.equal(attribute(tag, 'aria-invalid'), 'true', `the ${name} control is marked invalid`)
  return decode(m[1]!).trim()
}

/** Every field error on the page, by control name. */
export function fieldErrors(html: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of html.matchAll(/<p class="field-error" id="f-([a-z_]+)-error">([^<]*)<\/p>/g)) out[m[1]!] = decode(m[2]!)
  return out
}

/** The visible label text of each field. */
export function labels(html: string): string[] {
  return [...html.matchAll(/<label for="[^"]+">([^<]*)<\/label>/g)].map((m) => decode(m[1]!))
}

/** The text of the element with this id (`api-key`, `user-id`), or null. */
export function byId(html: string, id: string): string | null {
  const m = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)
  return m ? m[1]!.trim() : null
}

/** The labels of the page's submit buttons. */
export function submitButtons(html: string): string[] {
  return [...html.matchAll(/<button[^>]*type="submit"[^>]*>([\s\S]*?)<\/button>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, '').trim())
}

/**
 * The rows of the data table inside a chart's <details><summary>Data</summary>
 * (pages/chart.tsx), found by the chart's id: [time, value] pairs as shown.
 */
export function chartData(html: string, chartId: string): [string, string][] {
  const start = html.indexOf(`<figure class="chart" id="${chartId}"`)
  assert.ok(start >= 0, `chart ${chartId} is on the page`)
  const figure = html.slice(start, html.indexOf('</figure>', start))
  assert.match(figure, /<details class="chart-data"><summary>Data<\/summary>/)
  const body = figure.slice(figure.indexOf('<tbody>'), figure.indexOf('</tbody>'))
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => {
    const cells = [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => visibleText(c[1]!))
    return [cells[0] ?? '', cells[1] ?? '']
  })
}

/** The aria-label of a chart's SVG. */
export function chartLabel(html: string, chartId: string): string {
  const start = html.indexOf(`<figure class="chart" id="${chartId}"`)
  assert.ok(start >= 0, `chart ${chartId} is on the page`)
  const label = /<svg[^>]*aria-label="([^"]*)"/.exec(html.slice(start))?.[1]
  assert.ok(label !== undefined, 'the chart has an aria-label')
  return visibleText(label)
}
