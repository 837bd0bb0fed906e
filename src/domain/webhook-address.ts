import { WEBHOOK_URL_MAX_LENGTH } from './webhooks.ts'

/**
 * Where a webhook may be sent (SSRF): only to public unicast addresses. A plain rule over the
 * address text (IPv4 dotted quad or IPv6), applied to a URL's literal host at registration and to
 * every address its name resolves to, at registration and again at every delivery
 * (src/services/webhooks/delivery.ts pins the connection to the address checked here).
 */

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'invalid'

/** An IPv4 dotted quad as four octets, or null. */
export function parseIpv4(text: string): number[] | null {
  const parts = text.split('.')
  if (parts.length !== 4) return null
  const octets = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : -1))
  return octets.every((o) => o >= 0 && o <= 255) ? octets : null
}

/** An IPv6 address (optionally bracketed, with a dotted IPv4 tail, no zone) as eight 16-bit groups, or null. */
export function parseIpv6(input: string): number[] | null {
  let text = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input
  if (text.includes('%') || !text.includes(':')) return null
  // A dotted IPv4 tail (::ffff:1.2.3.4) is the last two groups written another way.
  const lastColon = text.lastIndexOf(':')
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = parseIpv4(text.slice(lastColon + 1))
    if (!v4) return null
    text = `${text.slice(0, lastColon + 1)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const group = (g: string) => (/^[0-9a-fA-F]{1,4}$/.test(g) ? parseInt(g, 16) : -1)
  const side = (s: string) => (s === '' ? [] : s.split(':').map(group))
  const head = side(halves[0]!)
  const rest = halves.length === 2 ? side(halves[1]!) : []
  if ([...head, ...rest].some((g) => g < 0)) return null
  if (halves.length === 1) return head.length === 8 ? head : null
  if (head.length + rest.length > 7) return null
  return [...head, ...Array<number>(8 - head.length - rest.length).fill(0), ...rest]
}

function classifyIpv4([a, b, c]: number[]): AddressClass {
  if (a === 0) return 'unspecified' // 0.0.0.0/8, "this network"
  if (a === 10) return 'private'
  if (a === 100 && b! >= 64 && b! <= 127) return 'cgnat' // 100.64.0.0/10
  if (a === 127) return 'loopback'
  if (a === 169 && b === 254) return 'link_local'
  if (a === 172 && b! >= 16 && b! <= 31) return 'private'
  if (a === 192 && b === 168) return 'private'
  if (a === 192 && b === 0 && c === 0) return 'reserved' // 192.0.0.0/24, IETF protocol assignments
  if (a === 198 && (b === 18 || b === 19)) return 'reserved' // 198.18.0.0/15, benchmarking
  if (a! >= 224 && a! <= 239) return 'multicast'
  if (a! >= 240) return 'reserved' // 240.0.0.0/4 and the broadcast address
  return 'public'
}

function classifyIpv6(g: number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number]
  const v4 = (hi: number, lo: number) => classifyIpv4([hi >> 8, hi & 255, lo >> 8, lo & 255])
  if (g.every((x) => x === 0)) return 'unspecified'
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback'
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): the IPv4 address inside decides; compatible ones are deprecated.
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return v4(g6, g7)
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return 'reserved'
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) reach the IPv4 address they carry.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return v4(g6, g7)
  if (g0 === 0x2002) return v4(g1, g2)
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local' // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private' // fec0::/10, deprecated site-local
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local' // fc00::/7
  if ((g0 & 0xff00) === 0xff00) return 'multicast' // ff00::/8
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved' // 100::/64, discard-only
  return 'public'
}

/** What kind of address `text` is (IPv4 or IPv6 text; anything else is `invalid`). */
export function classifyAddress(text: string): AddressClass {
  const v4 = parseIpv4(text)
  if (v4) return classifyIpv4(v4)
  const v6 = parseIpv6(text)
  return v6 ? classifyIpv6(v6) : 'invalid'
}

/**
 * Whether a webhook may connect to `address`: public unicast only; loopback too when
 * WEBHOOKS_ALLOW_LOOPBACK is set (tests and local development only).
 */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const kind = classifyAddress(address)
  return kind === 'public' || (allowLoopback && kind === 'loopback')
}

/** The loopback names the local-development setting lets through over plain http. */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]'])

export type WebhookUrlRefusal =
  | 'invalid_url'
  | 'too_long'
  | 'https_required'
  | 'credentials_not_allowed'
  | 'forbidden_address'

/** The URL as registered, and the host to resolve (null for an IP literal, checked here already). */
export interface CheckedWebhookUrl {
  url: string
  hostname: string
  literal: boolean
}

/**
 * The rule on a URL's text (before its name is resolved): at most 500 characters, an absolute
 * `https` URL without user name or password, whose IP-literal host (if any) is allowed. With
 * `allowLoopback`, `http` is accepted for 127.0.0.1, localhost and [::1] only.
 */
export function checkWebhookUrl(raw: string, allowLoopback: boolean): { ok: true; value: CheckedWebhookUrl } | { ok: false; reason: WebhookUrlRefusal } {
  if (raw.length > WEBHOOK_URL_MAX_LENGTH) return { ok: false, reason: 'too_long' }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: 'invalid_url' }
  }
  if (url.hostname === '') return { ok: false, reason: 'invalid_url' }
  const loopbackHost = allowLoopback && LOOPBACK_HOSTS.has(url.hostname)
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopbackHost)) return { ok: false, reason: 'https_required' }
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'credentials_not_allowed' }
  const literal = classifyAddress(url.hostname) !== 'invalid'
  if (literal && !addressAllowed(url.hostname.replace(/^\[|\]$/g, ''), allowLoopback)) return { ok: false, reason: 'forbidden_address' }
  url.hash = ''
  const normalized = url.toString()
  if (normalized.length > WEBHOOK_URL_MAX_LENGTH) return { ok: false, reason: 'too_long' }
  return { ok: true, value: { url: normalized, hostname: url.hostname.replace(/^\[|\]$/g, ''), literal } }
}
