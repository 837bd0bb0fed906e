import { apiKeyMatches } from '../domain/api-keys.ts'
import { writeDenial } from '../domain/access.ts'
import { ApiError } from '../domain/errors.ts'
import { findAccount, touchKeyLastUsed, type AccountRow } from '../store/accounts.ts'
import { overdueInvoices } from '../store/billing.ts'
import { readConfig } from '../store/settings.ts'
import type { ServiceContext } from './context.ts'

type AccessContext = Pick<ServiceContext, 'db' | 'clock'>

const MAX_USER_ID_LENGTH = 64
const MAX_API_KEY_LENGTH = 128
const KEY_USE_GRANULARITY_MS = 60_000

/**
 * The account whose id and key were presented, or null. An unknown or
 * oversized user id is compared against the decoy digest, so every failed
 * check costs the same (the caller answers a uniform 401).
 */
export async function authenticateKey(ctx: AccessContext, userId: unknown, apiKey: unknown): Promise<AccountRow | null> {
  const account = typeof userId === 'string' && userId.length <= MAX_USER_ID_LENGTH ? await findAccount(ctx.db, userId) : undefined
  const ok = typeof apiKey === 'string' && apiKey.length <= MAX_API_KEY_LENGTH && apiKeyMatches(apiKey, account?.api_key_hash ?? null)
  return ok && account ? account : null
}

/** Stamps `key_last_used_at`, at most once a minute per account, so auth stays one read on the hot path. */
export async function recordKeyUse(ctx: AccessContext, account: AccountRow): Promise<void> {
  const now = ctx.clock.now()
  if (account.key_last_used_at !== null && now.getTime() - account.key_last_used_at.getTime() < KEY_USE_GRANULARITY_MS) return
  await touchKeyLastUsed(ctx.db, account.user_id, now, KEY_USE_GRANULARITY_MS)
  account.key_last_used_at = now
}

/** The per-account limits the operator set: reads per minute, campaign creations per minute. */
export async function readRateLimits(ctx: Pick<ServiceContext, 'db'>): Promise<{ readsPerMin: number; createsPerMin: number }> {
  const config = await readConfig(ctx.db)
  return { readsPerMin: config.read_rate_limit_per_min, createsPerMin: config.create_rate_limit_per_min }
}

/**
 * Write access (domain/access.ts#writeDenial): 403 before 402. Overdue
 * invoices are read on the service clock at each write, so an invoice falls
 * due without any job running.
 */
export async function assertWriteAccess(ctx: AccessContext, account: AccountRow): Promise<void> {
  const overdue = await overdueInvoices(ctx.db, account.user_id, ctx.clock.now())
  const denial = writeDenial({ ...account, overdue_invoice_ids: overdue.map((i) => i.invoice_id) })
  if (denial) throw new ApiError(denial.status, denial.detail)
}
