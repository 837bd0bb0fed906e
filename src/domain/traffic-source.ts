import { isIPv4, isIPv6 } from 'node:net'

/**
 * A traffic source (operations.md section 2, "Invalid traffic"): an IPv4 address, or the /64 of an
 * IPv6 address, since one IPv6 subscriber or host is routinely handed a whole /64 and may spread
 * over it at will. The invalid-traffic bounds and the authentication lockout both count per source.
 *
 * Written `203.0.113.7` or `2001:db8:0:1::/64` (the network in RFC 5952's compressed form);
 * an IPv4-mapped IPv6 address (`::ffff:203.0.113.7`) is its IPv4 source.
 */
export type Source = string

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  if (!isIPv6(address)) return null
  let text = address.toLowerCase()
  const zone = text.indexOf('%')
  if (zone >= 0) text = text.slice(0, zone)
  // A trailing dotted quad (::ffff:1.2.3.4) is two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = text.split('::')
  const part = (s: string) => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)))
  const left = part(head)
  const right = tail === undefined ? [] : part(tail)
  const zeros = tail === undefined ? 0 : 8 - left.length - right.length
  return [...left, ...new Array<number>(zeros).fill(0), ...right]
}

/** RFC 5952: hex without leading zeros, the longest run (of two or more) of zero groups as `::`. */
function formatIpv6(groups: readonly number[]): string {
  let best = -1
  let bestLength = 1
  for (let i = 0; i < groups.length; ) {
    if (groups[i] !== 0) {
      i++
      continue
    }
    let j = i
    while (j < groups.length && groups[j] === 0) j++
    if (j - i > bestLength) [best, bestLength] = [i, j - i]
    i = j
  }
  const hex = groups.map((g) => g.toString(16))
  if (best < 0) return hex.join(':')
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`
}

const isMappedIpv4 = (g: readonly number[]) => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff

/** The source of a client address (as the service saw it, after TRUST_PROXY); the text itself when it is no IP address. */
export function sourceOf(address: string): Source {
  if (isIPv4(address)) return address
  const groups = ipv6Groups(address)
  if (!groups) return address
  if (isMappedIpv4(groups)) return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`
  return `${formatIpv6([...groups.slice(0, 4), 0, 0, 0, 0])}/64`
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
  const groups = ipv6Groups(address)
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
