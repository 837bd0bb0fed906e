import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ApiError } from '../../src/domain/errors.ts'
import { decodeCursor, encodeCursor, pageOf } from '../../src/domain/pagination.ts'

const seqKey = ([seq, ...rest]: unknown[]) => (rest.length === 0 && Number.isSafeInteger(seq) ? Number(seq) : null)

function refused(fn: () => unknown, reason: string): void {
  assert.throws(fn, (err) => err instanceof ApiError && err.status === 400 && typeof err.detail === 'object' && err.detail.field === 'cursor' && err.detail.reason === reason)
}

test('a cursor decodes to the key it was made from, for its own list only', () => {
  const cursor = encodeCursor('campaigns', [42])
  assert.match(cursor, /^[A-Za-z0-9_-]+$/)
  assert.equal(decodeCursor('campaigns', cursor, seqKey), 42)
  refused(() => decodeCursor('exports', cursor, () => 'never'), 'foreign_cursor')
  refused(() => decodeCursor('campaigns', encodeCursor('campaigns', ['x']), seqKey), 'malformed_cursor')
  refused(() => decodeCursor('campaigns', `${cursor}!`, seqKey), 'malformed_cursor')
  refused(() => decodeCursor('campaigns', 'e30', seqKey), 'malformed_cursor') // {}
  refused(() => decodeCursor('campaigns', Buffer.from('[1]').toString('base64url'), seqKey), 'malformed_cursor')
})

test('a page read with one extra row: a next cursor only when more follow, keyed on the last shown', () => {
  const key = (n: number) => [n]
  assert.deepEqual(pageOf([5, 4, 3], 3, key, 'campaigns'), { items: [5, 4, 3], nextCursor: null })
  const page = pageOf([5, 4, 3, 2], 3, key, 'campaigns')
  assert.deepEqual(page.items, [5, 4, 3])
  assert.equal(decodeCursor('campaigns', page.nextCursor!, seqKey), 3)
  assert.deepEqual(pageOf([], 3, key, 'campaigns'), { items: [], nextCursor: null })
})
