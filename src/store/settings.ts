import type { Db } from './db.ts'
import { DEFAULT_CONFIG, type ServiceConfig } from '../domain/order-config.ts'

/** Operator overrides are stored as one JSON document over the code defaults. */
const CONFIG_KEY = 'service_config'
const MANUAL_CLOCK_KEY = 'manual_clock'

export async function readConfig(db: Db): Promise<ServiceConfig> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', CONFIG_KEY).executeTakeFirst()
  return { ...DEFAULT_CONFIG, ...((row?.value as Partial<ServiceConfig> | undefined) ?? {}) }
}

export async function writeConfigOverrides(db: Db, patch: Partial<ServiceConfig>): Promise<ServiceConfig> {
  return db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('settings').select('value').where('key', '=', CONFIG_KEY).forUpdate().executeTakeFirst()
    const merged = { ...((row?.value as Partial<ServiceConfig> | undefined) ?? {}), ...patch }
    await trx
      .insertInto('settings')
      .values({ key: CONFIG_KEY, value: JSON.stringify(merged) })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: JSON.stringify(merged) }))
      .execute()
    return { ...DEFAULT_CONFIG, ...merged }
  })
}

export async function readComponentStates(db: Db): Promise<Map<string, string>> {
  const rows = await db.selectFrom('component_states').select(['component', 'state']).execute()
  return new Map(rows.map((r) => [r.component, r.state]))
}

export async function writeComponentState(db: Db, component: string, state: string, now: Date): Promise<void> {
  await db
    .insertInto('component_states')
    .values({ component, state, updated_at: now })
    .onConflict((oc) => oc.column('component').doUpdateSet({ state, updated_at: now }))
    .execute()
}

/** The manual clock's last instant, so a restart never moves service time backwards. */
export async function readManualClock(db: Db): Promise<Date | null> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', MANUAL_CLOCK_KEY).executeTakeFirst()
  return typeof row?.value === 'string' ? new Date(row.value) : null
}

export async function writeManualClock(db: Db, now: Date): Promise<void> {
  const value = JSON.stringify(now.toISOString())
  await db
    .insertInto('settings')
    .values({ key: MANUAL_CLOCK_KEY, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute()
}

/**
 * A secret kept in the store, created once (by whichever instance gets there
 * first) and shared by every instance on the store: `serving_secret` keys
 * viewer keys (it opens and forges nothing), `offer_key` seals impression ids
 * unless OFFER_KEYS is set, `key_sealing_key` seals the recoverable copy of
 * API keys and the webhook secrets unless KEY_SEALING_KEY is set.
 */
export async function ensureStoredSecret(db: Db, name: StoredSecret, fresh: () => string): Promise<Buffer> {
  await db
    .insertInto('settings')
    .values({ key: name, value: JSON.stringify(fresh()) })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute()
  const secret = await readStoredSecret(db, name)
  if (secret === null) throw new Error(`settings ${name} vanished`)
  return secret
}

/** A secret kept in the store, or null when no instance has created it (nothing is created here). */
export async function readStoredSecret(db: Db, name: StoredSecret): Promise<Buffer | null> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', name).executeTakeFirst()
  if (!row) return null
  if (typeof row.value !== 'string') throw new Error(`settings ${name} is not a hex string`)
  return Buffer.from(row.value, 'hex')
}

/**
 * `dev_attester_key`: the development attester's private key (ATTESTER=dev; PKCS#8, hex); `attester_subject_key`:
 * the key of the subjects' hashes (docs/attestation.md).
 */
type StoredSecret = 'serving_secret' | 'offer_key' | 'key_sealing_key' | 'dev_attester_key' | 'attester_subject_key'
