import { isIPv4, isIPv6 } from 'node:net'
import ipaddr from 'ipaddr.js'

/**
 * A traffic source (operations.md section 2, "Invalid traffic"): an IPv4 address, or the /64 of an
 * IPv6 address, since one IPv6 subscriber or host is routinely handed a whole /64 and may spread
 * over it at will. An IPv6 address that carries an IPv4 one (IPv4-mapped, 6to4, NAT64, Teredo) is
 * that IPv4 source. The invalid-traffic bounds, the block list, every lockout, the reset-email
 * limit and the public read limits all count per source.
 *
 * Written `203.0.113.7` or `2001:db8:0:1::/64` (the network in RFC 5952's compressed form).
 */
export type Source = string

/** Longer than any spelling of an address with a port and a zone: not parsed at all. */
const MAX_ADDRESS_TEXT = 100

/**
 * An IPv4 dotted quad in decimal, leading zeros allowed and read as decimal (`198.018.005.001` is
 * 198.18.5.1): its four octets, or null. Not inet_aton's octal, hex or short forms (`0x7f.1`, `127.1`).
 */
function decimalQuad(text: string): number[] | null {
  const parts = text.split('.')
  if (parts.length !== 4) return null
  const octets = parts.map((p) => (/^\d{1,8}$/.test(p) ? Number(p) : 256))
  return octets.every((o) => o <= 255) ? octets : null
}

/**
 * The eight 16-bit groups of an IPv6 address (leading zeros, upper case, a dotted IPv4 tail and a
 * zone allowed; the zone is dropped), or null when it is not one.
 */
function ipv6Groups(address: string): number[] | null {
  let text = address
  const zone = text.indexOf('%')
  if (zone >= 0) {
    if (!/^[\w.~-]{1,64}$/.test(text.slice(zone + 1))) return null
    text = text.slice(0, zone)
  }
  // A trailing dotted quad (::ffff:1.2.3.4) is two groups; written as groups, ipaddr.js cannot
  // mistake ::1.2.3.4 (IPv4-compatible) for ::ffff:1.2.3.4.
  const lastColon = text.lastIndexOf(':')
  if (lastColon >= 0 && text.includes('.', lastColon)) {
    const quad = decimalQuad(text.slice(lastColon + 1))
    if (!quad) return null
    text = `${text.slice(0, lastColon + 1)}${((quad[0]! << 8) | quad[1]!).toString(16)}:${((quad[2]! << 8) | quad[3]!).toString(16)}`
  }
  // Node's check is the strict one (no more than four hex digits a group, one `::`).
  return isIPv6(text) ? ipaddr.IPv6.parse(text).parts : null
}

/** RFC 5952: lower-case hex without leading zeros, the longest run (of two or more) of zero groups as `::`. */
const formatIpv6 = (groups: readonly number[]): string => new ipaddr.IPv6([...groups]).toRFC5952String()

const quadText = (hi: number, lo: number): string => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`

const isMappedIpv4 = (g: readonly number[]) => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff

/** A host:port, split; an address without a port; null when what follows the colon is no port. */
function withoutPort(text: string, port: string | undefined): string | null {
  if (port === undefined) return text
  return /^\d{1,5}$/.test(port) && Number(port) <= 65535 ? text : null
}

/**
 * A client address as a header or a socket wrote it, canonical: a port, IPv6 brackets and a zone
 * stripped, leading zeros dropped, IPv6 in RFC 5952 form, an IPv4-mapped address as its IPv4.
 * `198.18.5.1:1234` → `198.18.5.1`, `[2001:DB8::0001%eth0]:443` → `2001:db8::1`,
 * `::ffff:198.18.5.1` → `198.18.5.1`. Null when it is still no IP address (`unknown`, `1.2.3`,
 * a host name): the caller then takes the socket's address (http/plugins/client-address.ts).
 *
 * An unbracketed IPv6 address never carries a port: `2001:db8::1:443` is that address.
 */
export function canonicalAddress(text: string): string | null {
  const trimmed = text.trim()
  if (trimmed === '' || trimmed.length > MAX_ADDRESS_TEXT) return null
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(trimmed)
  if (bracketed) {
    const inner = withoutPort(bracketed[1]!, bracketed[2])
    const groups = inner === null ? null : ipv6Groups(inner)
    if (!groups) return null
    return isMappedIpv4(groups) ? quadText(groups[6]!, groups[7]!) : formatIpv6(groups)
  }
  // One colon: an IPv4 address and its port (no IPv6 address has fewer than two).
  const colons = trimmed.split(':')
  if (colons.length === 2) {
    const host = withoutPort(colons[0]!, colons[1])
    const quad = host === null ? null : decimalQuad(host)
    return quad ? quad.join('.') : null
  }
  if (colons.length === 1) return decimalQuad(trimmed)?.join('.') ?? null
  const groups = ipv6Groups(trimmed)
  if (!groups) return null
  return isMappedIpv4(groups) ? quadText(groups[6]!, groups[7]!) : formatIpv6(groups)
}

/** The prefixes whose addresses carry an IPv4 address, and where it sits. */
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16')
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96')
const NAT64_LOCAL_USE = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48')
const TEREDO = ipaddr.IPv6.parseCIDR('2001::/32')

/**
 * The IPv4 address an IPv6 address stands for, as text, or null: 6to4 (2002::/16, RFC 3056: bits
 * 16-47), NAT64 (64:ff9b::/96, RFC 6052, and the local-use 64:ff9b:1::/48, RFC 8215, read in the
 * /96 layout its deployments use: the last 32 bits) and Teredo (2001::/32, RFC 4380: the client's
 * public address, the last 32 bits inverted). One IPv4 host reaching us through a tunnel or a
 * translator is the same source as when it comes directly.
 */
export function embeddedIpv4(groups: readonly number[]): string | null {
  const address = new ipaddr.IPv6([...groups])
  if (address.match(SIX_TO_FOUR)) return quadText(groups[1]!, groups[2]!)
  if (address.match(NAT64_WELL_KNOWN) || address.match(NAT64_LOCAL_USE)) return quadText(groups[6]!, groups[7]!)
  if (address.match(TEREDO)) return quadText(groups[6]! ^ 0xffff, groups[7]! ^ 0xffff)
  return null
}

/**
 * The source of a client address (the request's canonical client address, after TRUST_PROXY;
 * any spelling `canonicalAddress` reads); the text itself when it is no IP address.
 */
export function sourceOf(address: string): Source {
  const canonical = canonicalAddress(address)
  if (canonical === null) return address
  if (isIPv4(canonical)) return canonical
  const groups = ipv6Groups(canonical)
  if (!groups) return canonical
  return embeddedIpv4(groups) ?? `${formatIpv6([...groups.slice(0, 4), 0, 0, 0, 0])}/64`
}

/**
 * The IPv6 /48 an IPv6 source (a /64) lies in, written like a source: `2001:db8:1:2::/64` →
 * `2001:db8:1::/48`. Null for an IPv4 source (an IPv6 address carrying an IPv4 one is that IPv4
 * source already) and for anything that is no /64. One site is routinely handed a whole /48, that
 * is 65,536 sources, so the invalid-traffic bounds also count the /48 as a whole
 * (domain/invalid-traffic.ts#boundKeysOf).
 */
export function prefix48Of(source: Source): string | null {
  if (!source.endsWith('/64')) return null
  const groups = ipv6Groups(source.slice(0, -3))
  if (!groups) return null
  return `${formatIpv6([groups[0]!, groups[1]!, groups[2]!, 0, 0, 0, 0, 0])}/48`
}

/** A source in 4 (IPv4) or 8 (IPv6 /64) bytes, for sealing into an impression id; null when it is neither. */
export function sourceBytes(source: Source): Buffer | null {
  if (isIPv4(source)) return Buffer.from(source.split('.').map(Number))
  if (!source.endsWith('/64')) return null
  const groups = ipv6Groups(source.slice(0, -3))
  if (!groups) return null
  const out = Buffer.alloc(8)
  groups.slice(0, 4).forEach((g, i) => out.writeUInt16BE(g, i * 2))
  return out
}

/** The source written by `sourceBytes`. */
export function sourceFromBytes(bytes: Buffer): Source {
  if (bytes.length === 4) return [...bytes].join('.')
  const groups = [0, 1, 2, 3].map((i) => bytes.readUInt16BE(i * 2))
  return `${formatIpv6([...groups, 0, 0, 0, 0])}/64`
}

/** An address range of the operators' block list. */
export interface Cidr {
  family: 'ipv4' | 'ipv6'
  /** The network address, canonical (host bits cleared). */
  network: string
  prefix: number
}

/** The narrowest IPv6 range one may block: a source is a /64, so nothing inside one is told apart. */
export const IPV6_MAX_PREFIX = 64
/** The widest ranges one may block (a /8 of IPv4, a /16 of IPv6): a /0 would stop all billing, which is not what a block list is for. */
export const IPV4_MIN_PREFIX = 8
export const IPV6_MIN_PREFIX = 16

/**
 * Parses `a.b.c.d/n` (n 8-32), `x:y::/n` (n 16-64) or a bare address (a /32, or the address's /64).
 * Host bits must be clear, so that what an operator reads back is what they typed.
 */
export function parseCidr(text: string): Cidr | { error: 'invalid_format' | 'host_bits_set' | 'prefix_too_long' | 'prefix_too_short' } {
  const [address = '', prefixText, ...rest] = text.trim().split('/')
  if (rest.length > 0 || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) return { error: 'invalid_format' }
  if (isIPv4(address)) {
    const prefix = prefixText === undefined ? 32 : Number(prefixText)
    if (prefix > 32) return { error: 'invalid_format' }
    if (prefix < IPV4_MIN_PREFIX) return { error: 'prefix_too_short' }
    const value = address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0)
    const network = value - (value % 2 ** (32 - prefix))
    if (network !== value && prefixText !== undefined) return { error: 'host_bits_set' }
    return { family: 'ipv4', network: address, prefix }
  }
  const groups = address.includes('%') ? null : ipv6Groups(address)
  if (!groups || isMappedIpv4(groups)) return { error: 'invalid_format' }
  const prefix = prefixText === undefined ? IPV6_MAX_PREFIX : Number(prefixText)
  if (prefix > 128) return { error: 'invalid_format' }
  if (prefix > IPV6_MAX_PREFIX) return { error: 'prefix_too_long' }
  if (prefix < IPV6_MIN_PREFIX) return { error: 'prefix_too_short' }
  const cleared = groups.map((g, i) => {
    const bits = Math.max(0, Math.min(16, prefix - i * 16))
    return bits === 16 ? g : g & (0xffff << (16 - bits)) & 0xffff
  })
  if (prefixText !== undefined && cleared.some((g, i) => g !== groups[i])) return { error: 'host_bits_set' }
  return { family: 'ipv6', network: formatIpv6(cleared), prefix }
}

/** A CIDR written back canonically: `203.0.113.0/24`, `2001:db8::/48`. */
export const formatCidr = (c: Cidr): string => `${c.network}/${c.prefix}`

/** Whether `source` lies in `range` (an IPv6 /64 source lies in it when its whole /64 does). */
export function sourceInCidr(source: Source, range: Cidr): boolean {
  if (range.family === 'ipv4') {
    if (!isIPv4(source)) return false
    const n = (a: string) => a.split('.').reduce((v, octet) => v * 256 + Number(octet), 0)
    const size = 2 ** (32 - range.prefix)
    return Math.floor(n(source) / size) === Math.floor(n(range.network) / size)
  }
  const bytes = sourceBytes(source)
  const net = sourceBytes(`${range.network}/64`)
  if (!bytes || bytes.length !== 8 || !net) return false
  for (let bit = 0; bit < range.prefix; bit++) {
    const mask = 0x80 >> (bit % 8)
    if ((bytes[bit >> 3]! & mask) !== (net[bit >> 3]! & mask)) return false
  }
  return true
}
