import ipaddr from 'ipaddr.js'
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
  | 'ipv4_mapped'
  | 'nat64_local'
  | 'teredo'
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

/**
 * The ranges are ipaddr.js's table of special-purpose addresses (the IANA registries, kept up to
 * date by a library Fastify already depends on); this module keeps its own strict parsing above
 * (ipaddr.js also reads `0x7f.1` and `127.1`) and decides what each range means for a webhook.
 * A range name it does not know (a newer ipaddr.js) is `reserved`: refused until looked at.
 */
const IPV4_RANGES: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  unspecified: 'unspecified', // 0.0.0.0/8, "this network"
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link_local',
  carrierGradeNat: 'cgnat',
  multicast: 'multicast',
  // 240.0.0.0/4, the broadcast address, 192.0.0.0/24, 198.18.0.0/15, the documentation
  // networks, the 6to4 relay anycast, AS112 and AMT: no webhook receiver lives there.
  broadcast: 'reserved',
  reserved: 'reserved',
  as112: 'reserved',
  amt: 'reserved',
}

const IPV6_RANGES: Readonly<Record<string, AddressClass>> = {
  unicast: 'public',
  unspecified: 'unspecified',
  loopback: 'loopback',
  linkLocal: 'link_local', // fe80::/10
  deprecatedSiteLocal: 'private', // fec0::/10
  uniqueLocal: 'unique_local', // fc00::/7
  multicast: 'multicast', // ff00::/8
  // ::ffff:0:0/96, in any spelling (::ffff:127.0.0.1, ::ffff:7f00:1): not an IPv6 destination but
  // a socket's way of writing an IPv4 one. No name has a reason to resolve to one, so the whole
  // range is refused, whatever IPv4 address it carries.
  ipv4Mapped: 'ipv4_mapped',
  teredo: 'teredo', // 2001::/32: a tunnel whose far end is an IPv4 address hidden in the bits
  // 64:ff9b::/96 is decided by the IPv4 address inside (classifyIpv6); what is left of
  // ipaddr.js's `rfc6052` is 64:ff9b:1::/48, the local-use NAT64 prefix (RFC 8215).
  rfc6052: 'nat64_local',
}

const rangeClass = (table: Readonly<Record<string, AddressClass>>, range: string): AddressClass =>
  Object.hasOwn(table, range) ? table[range]! : 'reserved'

function classifyIpv4(octets: number[]): AddressClass {
  return rangeClass(IPV4_RANGES, new ipaddr.IPv4(octets).range())
}

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96')
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16')

function classifyIpv6(g: number[]): AddressClass {
  const address = new ipaddr.IPv6(g)
  const range: string = address.range()
  const v4 = (hi: number, lo: number) => classifyIpv4([hi >> 8, hi & 255, lo >> 8, lo & 255])
  // IPv4-compatible (::a.b.c.d, deprecated since RFC 4291): ipaddr.js calls it unicast.
  if (range === 'unicast' && g.slice(0, 6).every((x) => x === 0)) return 'reserved'
  // The well-known NAT64 prefix (DNS64 answers for IPv4-only names) and 6to4 reach the IPv4
  // address they carry: that address decides.
  if (address.match(NAT64_WELL_KNOWN)) return v4(g[6]!, g[7]!)
  if (address.match(SIX_TO_FOUR)) return v4(g[1]!, g[2]!)
  // The other special ranges (discard-only 100::/64, IPv4-translated ::ffff:0:0:0/96, the IETF
  // protocol assignments of 2001::/23, documentation 2001:db8::/32 and 3fff::/20, ORCHID,
  // benchmarking, segment routing…) are `reserved`.
  return rangeClass(IPV6_RANGES, range)
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
