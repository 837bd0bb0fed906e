import { checkSvgIcon } from './svg-icon.ts'

/**
 * An advertiser's icon: an https URL or a `data:image/…` URI (spec: at most 12,000 characters).
 * A data URI is decoded as a browser decodes it (percent-decoding, then base64 when marked) and
 * what it holds is checked: a raster image must start with its format's signature, so no text
 * passes as a PNG; an SVG is text, held to the display-text character rules and to the
 * static-icon allow-list of svg-icon.ts.
 */
export type IconReason =
  | 'too_long'
  | 'invalid_icon_url'
  | 'invalid_unicode'
  | 'control_characters'
  | 'too_many_combining_marks'
  | 'unsafe_svg'

/** A refused icon: the reason, and the facts a 400 carries with it. */
export type IconRefusal = { reason: IconReason } & Record<string, unknown>

export const MAX_ICON_URL_LENGTH = 12_000
/** Icons are ASCII in practice (base64 or percent-encoded); the byte cap bounds the other kind. */
export const MAX_ICON_URL_BYTES = 16_384

const RASTER_SIGNATURES: Readonly<Record<string, (b: Uint8Array) => boolean>> = {
  'image/png': (b) => [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((x, i) => b[i] === x),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a',
  'image/webp': (b) => ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 12) === 'WEBP',
}
const SVG = 'image/svg+xml'

function ascii(b: Uint8Array, from: number, to: number): string {
  let s = ''
  for (let i = from; i < Math.min(to, b.length); i++) s += String.fromCharCode(b[i]!)
  return s
}
const utf8 = new TextEncoder()
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Percent-decoding as the URL standard does it for a data URI's body; null when an escape is broken. */
function percentDecode(text: string): Uint8Array | null {
  const bytes = utf8.encode(text)
  const out = new Uint8Array(bytes.length)
  let n = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 0x25) {
      out[n++] = bytes[i]!
      continue
    }
    const hex = String.fromCharCode(bytes[i + 1] ?? 0, bytes[i + 2] ?? 0)
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return null
    out[n++] = parseInt(hex, 16)
    i += 2
  }
  return out.subarray(0, n)
}

function utf8Length(text: string): number {
  let bytes = 0
  for (const ch of text) {
    const cp = ch.codePointAt(0)!
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4
  }
  return bytes
}

/**
 * The media type and decoded bytes of `data:image/<type>[;charset=utf-8][;base64],<data>`, or
 * null. No other parameter, and no `#` (a browser would cut the data there: what is checked
 * must be all that is shown).
 */
function decodeDataUri(raw: string): { type: string; bytes: Uint8Array } | null {
  const comma = raw.indexOf(',')
  if (comma === -1 || raw.includes('#')) return null
  const [type = '', ...params] = raw.slice('data:'.length, comma).toLowerCase().split(';')
  const base64 = params.at(-1) === 'base64'
  if (base64) params.pop()
  if (!params.every((p) => p === 'charset=utf-8' || p === 'charset=utf8')) return null
  if (type !== SVG && !Object.hasOwn(RASTER_SIGNATURES, type)) return null
  const body = percentDecode(raw.slice(comma + 1))
  if (body === null) return null
  if (!base64) return { type, bytes: body }
  const text = ascii(body, 0, body.length)
  if (!BASE64.test(text)) return null
  return { type, bytes: Uint8Array.from(atob(text), (c) => c.charCodeAt(0)) }
}

function checkDataUri(raw: string): IconRefusal | null {
  const decoded = decodeDataUri(raw)
  if (!decoded) return { reason: 'invalid_icon_url' }
  const { type, bytes } = decoded
  if (type !== SVG) return RASTER_SIGNATURES[type]!(bytes) ? null : { reason: 'invalid_icon_url' }
  let svg: string
  try {
    svg = strictUtf8.decode(bytes)
  } catch {
    return { reason: 'invalid_unicode' }
  }
  return checkSvgIcon(svg)
}

/** An icon is an https URL or a data: URI of an image; null when it is acceptable. */
export function checkIconUrl(raw: string): IconRefusal | null {
  if (raw.length > MAX_ICON_URL_LENGTH || utf8Length(raw) > MAX_ICON_URL_BYTES) {
    return { reason: 'too_long', max_length: MAX_ICON_URL_LENGTH, max_bytes: MAX_ICON_URL_BYTES }
  }
  // The same character rule for both kinds: no white space, no control characters.
  if (/[\s\p{Cc}]/u.test(raw)) return { reason: 'invalid_icon_url' }
  if (/^data:/i.test(raw)) return checkDataUri(raw)
  try {
    const u = new URL(raw)
    if (u.protocol === 'https:' && u.hostname !== '' && u.username === '' && u.password === '') return null
  } catch {
    // fall through
  }
  return { reason: 'invalid_icon_url' }
}
