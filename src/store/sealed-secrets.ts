import { sql } from 'kysely'
import type { Db } from './db.ts'

/**
 * The sealed secrets at rest (platform/secret-sealing.ts): the copy of each
 * account's API key, each webhook endpoint's signing secret, and each outbox
 * message's body and password link, read and replaced for a re-seal under
 * another key (services/key-sealing.ts).
 */
export type SealedKind = 'api_key' | 'webhook_secret' | 'outbox_body' | 'outbox_link'

export const SEALED_KINDS: readonly SealedKind[] = ['api_key', 'webhook_secret', 'outbox_body', 'outbox_link']

const WHERE: Record<SealedKind, { table: 'accounts' | 'webhook_endpoints' | 'outbox'; id: 'user_id' | 'endpoint_id' | 'message_id'; column: 'api_key_sealed' | 'secret_sealed' | 'body_sealed' | 'link_sealed' }> = {
  api_key: { table: 'accounts', id: 'user_id', column: 'api_key_sealed' },
  webhook_secret: { table: 'webhook_endpoints', id: 'endpoint_id', column: 'secret_sealed' },
  outbox_body: { table: 'outbox', id: 'message_id', column: 'body_sealed' },
  outbox_link: { table: 'outbox', id: 'message_id', column: 'link_sealed' },
}

export interface SealedRow {
  id: string
  sealed: Buffer
}

/**
 * Up to `limit` sealed values of `kind` after the row `afterId` (in id
 * order) whose key id, the layout's second byte, is not `keyId`: the ones a
 * re-seal under `keyId` has left to do. A value too short to hold a key id is
 * listed too (it opens under no key).
 */
export async function sealedNotUnder(db: Db, kind: SealedKind, keyId: number, afterId: string, limit: number): Promise<SealedRow[]> {
  const { table, id, column } = WHERE[kind]
  const { rows } = await sql<SealedRow>`
    SELECT ${sql.ref(id)} AS id, ${sql.ref(column)} AS sealed FROM ${sql.table(table)}
    WHERE ${sql.ref(column)} IS NOT NULL AND substring(${sql.ref(column)} FROM 2 FOR 1) <> ${Buffer.from([keyId])} AND ${sql.ref(id)} > ${afterId}
    ORDER BY ${sql.ref(id)} LIMIT ${limit}`.execute(db)
  return rows
}

/** Replaces a sealed value only if it is still `old` (a key rotated meanwhile keeps its new copy); whether it was replaced. */
export async function replaceSealed(db: Db, kind: SealedKind, rowId: string, old: Buffer, fresh: Buffer): Promise<boolean> {
  const { table, id, column } = WHERE[kind]
  const result = await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${fresh} WHERE ${sql.ref(id)} = ${rowId} AND ${sql.ref(column)} = ${old}`.execute(db)
  return (result.numAffectedRows ?? 0n) > 0n
}
