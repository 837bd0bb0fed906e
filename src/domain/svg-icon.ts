import { hasControlCharacters, hasStackedMarks } from './text-rules.ts'

/**
 * What an SVG icon may hold (the decoded text of a `data:image/svg+xml` icon_url). An icon is
 * served to clients that may show it as an image, inline it in a page or open it as a document;
 * in the last two an SVG runs its scripts and fetches what it references. So the rule is an
 * allow-list, not a deny-list: static shapes, gradients, clips, masks and text, with presentation
 * attributes, nothing else. Refused in particular: `<script>`, `<foreignObject>`, `<style>` (and
 * with it `@import`), `<image>`, `<use>` (nested uses multiply into a rendering bomb), `<a>`,
 * animation, `on*` event attributes, `javascript:` anywhere, any `href`/`xlink:href` that is not a
 * same-document `#fragment`, any CSS `url(…)` that is not one, and any other CSS function that can
 * load a resource. The XML is read by a strict tokenizer that refuses what it does not know
 * (DOCTYPE and entities, CDATA, processing instructions, prefixes other than `xlink:`/`xml:`,
 * comments an HTML parser would end elsewhere), so what it checked is what a browser builds,
 * whether it parses the icon as an XML document or inlined in an HTML page.
 */
export type SvgProblem =
  | { reason: 'unsafe_svg'; found: string }
  | { reason: 'control_characters' }
  | { reason: 'too_many_combining_marks' }

const ELEMENTS = new Set([
  'svg', 'g', 'defs', 'title', 'desc', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon',
  'text', 'tspan', 'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask',
])

/** Presentation properties: allowed as attributes and inside `style`. */
const PROPERTIES = [
  'fill', 'fill-opacity', 'fill-rule', 'stroke', 'stroke-width', 'stroke-opacity', 'stroke-linecap', 'stroke-linejoin',
  'stroke-miterlimit', 'stroke-dasharray', 'stroke-dashoffset', 'opacity', 'clip-path', 'clip-rule', 'mask', 'transform',
  'transform-origin', 'stop-color', 'stop-opacity', 'color', 'display', 'visibility', 'overflow', 'shape-rendering',
  'text-rendering', 'vector-effect', 'paint-order', 'font-family', 'font-size', 'font-weight', 'font-style', 'text-anchor',
  'dominant-baseline', 'alignment-baseline', 'letter-spacing', 'word-spacing', 'text-decoration',
]
const CSS_PROPERTIES = new Set(PROPERTIES)

/** Attributes whose value is not CSS: free text, numbers, path data, names. */
const PLAIN_ATTRIBUTES = new Set([
  'id', 'class', 'version', 'baseProfile', 'viewBox', 'preserveAspectRatio', 'x', 'y', 'width', 'height', 'xml:space',
  'role', 'aria-hidden', 'aria-label', 'focusable', 'd', 'cx', 'cy', 'r', 'rx', 'ry', 'x1', 'y1', 'x2', 'y2', 'points',
  'pathLength', 'dx', 'dy', 'rotate', 'textLength', 'lengthAdjust', 'gradientUnits', 'spreadMethod', 'fx', 'fy', 'fr',
  'offset', 'clipPathUnits', 'maskUnits', 'maskContentUnits',
])
/** Attributes read as CSS values (presentation attributes, `style`, transforms). */
const CSS_ATTRIBUTES = new Set([...PROPERTIES, 'style', 'gradientTransform'])
const NAMESPACES: Readonly<Record<string, string>> = {
  xmlns: 'http://www.w3.org/2000/svg',
  'xmlns:xlink': 'http://www.w3.org/1999/xlink',
}
const REFERENCES = new Set(['href', 'xlink:href'])

/** CSS functions an icon may use: colours, transforms and url(#fragment). */
const CSS_FUNCTIONS = new Set([
  'url', 'rgb', 'rgba', 'hsl', 'hsla', 'matrix', 'translate', 'translatex', 'translatey', 'scale', 'scalex', 'scaley',
  'rotate', 'skewx', 'skewy',
])

const FRAGMENT = /^#[A-Za-z_][A-Za-z0-9_.:-]*$/
const NAME = /[A-Za-z_][A-Za-z0-9_.-]*(?::[A-Za-z_][A-Za-z0-9_.-]*)?/y
const SPACE = /[ \t\r\n]*/y
const XML_DECLARATION = /<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(["'])1\.[01]\1([ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(["'])utf-?8\3)?([ \t\r\n]+standalone[ \t\r\n]*=[ \t\r\n]*(["'])(yes|no)\5)?[ \t\r\n]*\?>/iy
const MAX_DEPTH = 32

class Refusal extends Error {
  constructor(readonly problem: SvgProblem) {
    super(problem.reason)
  }
}
const unsafe = (found: string): never => {
  throw new Refusal({ reason: 'unsafe_svg', found })
}

/** Entity and character references: the five predefined, and numeric ones to characters XML allows. */
function decodeReferences(text: string): string {
  return text.replace(/&([^;&]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) unsafe('malformed XML')
    const named = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" }[ref]
    if (named !== undefined) return named
    const m = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(ref)
    if (!m) return unsafe('entity reference')
    const cp = m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2])
    const allowed = cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff)
    return allowed ? String.fromCodePoint(cp) : unsafe('character reference')
  })
}

/** The character rules of display text, on text whose tabs and line breaks are XML white space. */
function checkCharacters(text: string): void {
  if (hasControlCharacters(text.replace(/[\t\n\r]/g, ' '))) throw new Refusal({ reason: 'control_characters' })
  if (hasStackedMarks(text)) throw new Refusal({ reason: 'too_many_combining_marks' })
}

/** A CSS value (a presentation attribute or a declaration's value). */
function checkCssValue(value: string): void {
  if (value.includes('\\')) unsafe('CSS escape')
  if (value.includes('@')) unsafe('CSS at-rule')
  if (value.includes('/*')) unsafe('CSS comment')
  for (const m of value.matchAll(/([A-Za-z_-][A-Za-z0-9_-]*)[ \t\r\n]*\(([^)]*)\)?/g)) {
    const name = m[1]!.toLowerCase()
    if (!CSS_FUNCTIONS.has(name)) unsafe(`CSS function ${name.slice(0, 40)}()`)
    if (name === 'url') {
      const target = m[2]!.trim().replace(/^(["'])(.*)\1$/, '$2')
      if (!FRAGMENT.test(target)) unsafe('external reference')
    }
  }
}

function checkStyle(style: string): void {
  for (const declaration of style.split(';')) {
    if (declaration.trim() === '') continue
    const colon = declaration.indexOf(':')
    const property = (colon === -1 ? declaration : declaration.slice(0, colon)).trim().toLowerCase()
    if (colon === -1 || !CSS_PROPERTIES.has(property)) unsafe(`CSS property ${property.slice(0, 40)}`)
    checkCssValue(declaration.slice(colon + 1))
  }
}

function checkAttribute(name: string, value: string): void {
  if (/^on/i.test(name)) unsafe(`event attribute ${name.slice(0, 40)}`)
  if (/javascript:/i.test(value.replace(/[\s\p{Cc}\p{Cf}]/gu, ''))) unsafe('javascript: URL')
  if (Object.hasOwn(NAMESPACES, name)) {
    if (value !== NAMESPACES[name]) unsafe(`namespace ${value.slice(0, 60)}`)
    return
  }
  if (REFERENCES.has(name)) {
    if (!FRAGMENT.test(value)) unsafe('external reference')
    return
  }
  if (CSS_ATTRIBUTES.has(name)) {
    if (name === 'style') checkStyle(value)
    else checkCssValue(value)
    return
  }
  if (!PLAIN_ATTRIBUTES.has(name)) unsafe(`attribute ${name.slice(0, 40)}`)
}

/** Reads a start tag's attributes from `at` (just past its name); returns where the tag ends and whether it closed itself. */
function readAttributes(source: string, at: number): { end: number; empty: boolean } {
  const seen = new Set<string>()
  let i = at
  for (;;) {
    SPACE.lastIndex = i
    SPACE.exec(source)
    const spaced = SPACE.lastIndex > i
    i = SPACE.lastIndex
    if (source.startsWith('/>', i)) return { end: i + 2, empty: true }
    if (source[i] === '>') return { end: i + 1, empty: false }
    NAME.lastIndex = i
    const name = spaced ? NAME.exec(source)?.[0] : undefined
    if (name === undefined) return unsafe('malformed XML')
    i += name.length
    SPACE.lastIndex = i
    SPACE.exec(source)
    i = SPACE.lastIndex
    if (source[i] !== '=') unsafe('malformed XML')
    SPACE.lastIndex = i + 1
    SPACE.exec(source)
    i = SPACE.lastIndex
    const quote = source[i]
    if (quote !== '"' && quote !== "'") unsafe('malformed XML')
    const close = source.indexOf(quote!, i + 1)
    if (close === -1) unsafe('malformed XML')
    const raw = source.slice(i + 1, close)
    if (raw.includes('<')) unsafe('malformed XML')
    if (seen.has(name)) unsafe('malformed XML')
    seen.add(name)
    const value = decodeReferences(raw)
    checkCharacters(value)
    checkAttribute(name, value)
    i = close + 1
  }
}

function readSvg(source: string): void {
  checkCharacters(source)
  let i = 0
  XML_DECLARATION.lastIndex = 0
  if (XML_DECLARATION.exec(source)) i = XML_DECLARATION.lastIndex
  const open: string[] = []
  let rootDone = false
  for (;;) {
    const lt = source.indexOf('<', i)
    const text = source.slice(i, lt === -1 ? undefined : lt)
    if (text !== '') {
      if (open.length === 0 && text.trim() !== '') unsafe('text outside the root element')
      checkCharacters(decodeReferences(text))
    }
    if (lt === -1) break
    if (source.startsWith('<!--', lt)) {
      // No `<`, `>` or `--` inside: an HTML parser (an icon inlined in a page) ends a comment at
      // `<!-->` or `--!>`, where XML does not, and would run what XML read as a comment.
      const end = source.indexOf('-->', lt + 4)
      if (end === -1 || /--|[<>]/.test(source.slice(lt + 4, end))) unsafe('malformed XML')
      i = end + 3
    } else if (source.startsWith('<!', lt)) {
      unsafe(source.startsWith('<![CDATA[', lt) ? 'CDATA section' : /^<!DOCTYPE/i.test(source.slice(lt, lt + 9)) ? 'DOCTYPE' : 'markup declaration')
    } else if (source.startsWith('<?', lt)) {
      unsafe('processing instruction')
    } else if (source.startsWith('</', lt)) {
      NAME.lastIndex = lt + 2
      const name = NAME.exec(source)?.[0]
      SPACE.lastIndex = lt + 2 + (name?.length ?? 0)
      SPACE.exec(source)
      if (name === undefined || name !== open.pop() || source[SPACE.lastIndex] !== '>') unsafe('malformed XML')
      i = SPACE.lastIndex + 1
      if (open.length === 0) rootDone = true
    } else {
      NAME.lastIndex = lt + 1
      const name = NAME.exec(source)?.[0]
      if (name === undefined) return unsafe('malformed XML')
      if (rootDone) unsafe('a second root element')
      if (open.length === 0 && name !== 'svg') unsafe(`root element <${name.slice(0, 40)}>`)
      if (!ELEMENTS.has(name)) unsafe(`element <${name.slice(0, 40)}>`)
      const tag = readAttributes(source, lt + 1 + name.length)
      i = tag.end
      if (!tag.empty) {
        if (open.length === MAX_DEPTH) unsafe('elements nested too deep')
        open.push(name)
      } else if (open.length === 0) rootDone = true
    }
  }
  if (!rootDone || open.length > 0) unsafe('malformed XML')
}

/** The first problem of an SVG document's text, or null when it is a static icon. */
export function checkSvgIcon(source: string): SvgProblem | null {
  try {
    readSvg(source)
    return null
  } catch (err) {
    if (err instanceof Refusal) return err.problem
    throw err
  }
}
