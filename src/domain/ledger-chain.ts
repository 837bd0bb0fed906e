import { createHash } from 'node:crypto'

/**
 * The byte formats of the verifiable ledger (docs/ledger-verification.md is the contract; the SDK's
 * packages/sdk/src/ledger-verify.ts is an independent implementation of the same bytes):
 *
 * - a field is `enc(text)`: its UTF-8 bytes after their length as a 4-byte big-endian integer;
 * - a day's chain starts at seed = SHA-256(enc("ad-ledger-day-v1") ‖ enc(user_id) ‖ enc(date) ‖ previous_root),
 *   previous_root being the account's root of its latest earlier day with rows (32 zero bytes for the first);
 * - each row, in export order (timestamp, then ledger order), moves it: h = SHA-256(h ‖ row bytes), the row
 *   bytes being `enc` of the nine fields the v3 export carries for the ledger (ROW_FIELDS), as the CSV writes them;
 * - the account's day root is the last h;
 * - the public log of a day is the RFC 6962 Merkle tree over the leaves enc(user_id) ‖ root (32 bytes), in
 *   account-id order (byte order of the ids): leaf hash SHA-256(0x00 ‖ leaf), node SHA-256(0x01 ‖ left ‖ right).
 */

export const CHAIN_DOMAIN = 'ad-ledger-day-v1'
export const ZERO_ROOT = '0'.repeat(64)

/** The fields of a row, in hashing order: the v3 export's columns without the processor's billing country. */
export const ROW_FIELDS = ['timestamp', 'event_type', 'campaign_id', 'creative_id', 'surface', 'country', 'billable', 'debit_micros', 'non_billable_reason'] as const
export type ChainRow = Record<(typeof ROW_FIELDS)[number], string>

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest()
}

/** A field: 4-byte big-endian length, then the UTF-8 bytes. */
export function enc(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8')
  const len = Buffer.alloc(4)
  len.writeUInt32BE(bytes.length)
  return Buffer.concat([len, bytes])
}

export function rowBytes(row: ChainRow): Buffer {
  return Buffer.concat(ROW_FIELDS.map((f) => enc(row[f])))
}

/** The running hash of one account's day: fed rows in order, it ends at the day's root. */
export class DayChain {
  private h: Buffer
  constructor(userId: string, date: string, previousRootHex: string) {
    this.h = sha256(enc(CHAIN_DOMAIN), enc(userId), enc(date), Buffer.from(previousRootHex, 'hex'))
  }
  add(row: ChainRow): void {
    this.h = sha256(this.h, rowBytes(row))
  }
  get root(): string {
    return this.h.toString('hex')
  }
}

/** The leaf of an account's day in the day's public tree. */
export function leafBytes(userId: string, rootHex: string): Buffer {
  return Buffer.concat([enc(userId), Buffer.from(rootHex, 'hex')])
}

export const leafHash = (leaf: Uint8Array): Buffer => sha256(Uint8Array.of(0), leaf)
const nodeHash = (l: Uint8Array, r: Uint8Array): Buffer => sha256(Uint8Array.of(1), l, r)

/** The largest power of two smaller than n (n >= 2), RFC 6962's split point. */
const split = (n: number): number => {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

/** RFC 6962 MTH over leaf hashes (the empty tree hashes the empty string). */
export function treeHash(leafHashes: readonly Buffer[]): Buffer {
  if (leafHashes.length === 0) return sha256()
  if (leafHashes.length === 1) return leafHashes[0]!
  const k = split(leafHashes.length)
  return nodeHash(treeHash(leafHashes.slice(0, k)), treeHash(leafHashes.slice(k)))
}

/** RFC 6962 PATH(m, D[n]): the audit path of leaf m, nearest the leaf first. */
export function auditPath(m: number, leafHashes: readonly Buffer[]): Buffer[] {
  const n = leafHashes.length
  if (n <= 1) return []
  const k = split(n)
  return m < k
    ? [...auditPath(m, leafHashes.slice(0, k)), treeHash(leafHashes.slice(k))]
    : [...auditPath(m - k, leafHashes.slice(k)), treeHash(leafHashes.slice(0, k))]
}

/** Sorts account ids in byte order of their UTF-8 (the leaves' order), never by a store's collation. */
export function byAccountId(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}
