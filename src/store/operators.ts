import { sql, type Selectable } from 'kysely'
import type { Db } from './db.ts'
import type { OperatorsTable } from './schema.ts'

export type OperatorRow = Selectable<OperatorsTable>

export async function operatorCount(db: Db): Promise<number> {
  const row = await db.selectFrom('operators').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()
  return Number(row.n)
}

/**
 * Inserts the first operator; false when one already exists. The table lock
 * makes two concurrent set-ups see each other: the second waits, then finds
 * the first operator and inserts nothing.
 */
export async function insertFirstOperator(db: Db, row: OperatorRow): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await sql`lock table operators in share row exclusive mode`.execute(trx)
    if ((await operatorCount(trx)) > 0) return false
    await trx.insertInto('operators').values(row).execute()
    return true
  })
}

export async function findOperatorByEmail(db: Db, emailKey: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('email_key', '=', emailKey).executeTakeFirst()
}

export async function findOperator(db: Db, operatorId: string): Promise<OperatorRow | undefined> {
  return db.selectFrom('operators').selectAll().where('operator_id', '=', operatorId).executeTakeFirst()
}
