import { invalid } from './errors.ts'

/**
 * Cursor pagination of the account's lists (GET /campaigns, GET /exports):
 * newest first, keyset on a key that never repeats within a list. A cursor
 * is opaque to clients: base64url of JSON `[list, ...key]`, naming the list
 * it belongs to so another list's cursor is refused instead of misread.
 * It carries a position only; every page is still read within the account.
 */
export const PAGE_LIMIT_DEFAULT = 50
export const PAGE_LIMIT_MAX = 200

/** The advertiser's lists, and the operator's (accounts, invoices, the moderation queue, the audit log). */
export type ListName = 'campaigns' | 'exports' | 'accounts' | 'invoices' | 'moderation' | 'audit' | 'ledger_days' | 'account_invoices'

export function encodeCursor(list: ListName, key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url')
}

const badCursor = (reason: string) => invalid('cursor', reason)

/**
 * The key inside a cursor of `list`, checked by `parse` (which returns null
 * for a key of the wrong shape). Anything else is 400 `{field: "cursor"}`:
 * `malformed_cursor` when it is not a cursor at all, `foreign_cursor` when it
 * is another list's.
 */
export function decodeCursor<K>(list: ListName, cursor: string, parse: (key: unknown[]) => K | null): K {
  let decoded: unknown
  try {
    const text = Buffer.from(cursor, 'base64url').toString('utf8')
    // base64url decoding skips stray characters; only a cursor that re-encodes to itself is one this service wrote.
    if (Buffer.from(text, 'utf8').toString('base64url') !== cursor) throw badCursor('malformed_cursor')
    decoded = JSON.parse(text)
  } catch {
    throw badCursor('malformed_cursor')
  }
  if (!Array.isArray(decoded) || typeof decoded[0] !== 'string') throw badCursor('malformed_cursor')
  if (decoded[0] !== list) throw badCursor('foreign_cursor')
  const key = parse(decoded.slice(1))
  if (key === null) throw badCursor('malformed_cursor')
  return key
}

/** A page read with one row more than it shows: the extra row only says that another page follows. */
export function pageOf<T>(rows: T[], limit: number, keyOf: (last: T) => readonly (string | number)[], list: ListName): { items: T[]; nextCursor: string | null } {
  if (rows.length <= limit) return { items: rows, nextCursor: null }
  const items = rows.slice(0, limit)
  return { items, nextCursor: encodeCursor(list, keyOf(items[items.length - 1]!)) }
}
