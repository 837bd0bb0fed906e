import type { Db } from './db.ts'

/** One round trip that needs no table: true when the store answers. */
export async function storeReachable(db: Db): Promise<boolean> {
  return db
    .selectNoFrom((eb) => eb.val(1).as('one'))
    .execute()
    .then(
      () => true,
      () => false,
    )
}
