import { randomBytes } from 'node:crypto'
import { SecretSealer } from '../platform/secret-sealing.ts'
import { ensureStoredSecret, readStoredSecret } from '../store/settings.ts'
import { replaceSealed, SEALED_KINDS, sealedNotUnder, type SealedKind } from '../store/sealed-secrets.ts'
import type { ServiceContext } from './context.ts'

/**
 * The recoverable copy of an API key (docs/decisions/0238-revealable-keys-are-sealed-not-stored-in-clear.md). Keys
 * are authenticated by their SHA-256 digest only; the portal's "Reveal" needs
 * the key itself, so every newly issued key is also sealed (AES-256-GCM) under
 * the key-sealing key: the ring of KEY_SEALING_KEY, else one key generated once
 * and kept in the store (settings row `key_sealing_key`, key id 0), as the
 * offer keys are (src/serving/engine.ts).
 */
export const STORED_SEALING_KEY_ID = 0

type SealingContext = Pick<ServiceContext, 'db' | 'settings'>

/** The key-sealing ring's sealer (KEY_SEALING_KEY, else the key kept in the store). */
export async function keySealer(ctx: SealingContext): Promise<SecretSealer> {
  const ring = ctx.settings.keySealingKeys ?? [
    { id: STORED_SEALING_KEY_ID, key: await ensureStoredSecret(ctx.db, 'key_sealing_key', () => randomBytes(32).toString('hex')) },
  ]
  return new SecretSealer(ring)
}

/** The sealed copy is bound to its account: copied onto another account's row, it does not open. */
const sealContext = (userId: string) => `api_key:${userId}`

export async function sealApiKey(ctx: SealingContext, userId: string, apiKey: string): Promise<Buffer> {
  return (await keySealer(ctx)).seal(apiKey, sealContext(userId))
}

/** Whether the account's current key has a sealed copy this instance holds the key for (nothing is opened). */
export async function keyRevealable(ctx: SealingContext, account: { api_key_sealed: Buffer | null }): Promise<boolean> {
  return account.api_key_sealed !== null && (await keySealer(ctx)).canOpen(account.api_key_sealed)
}

/** The account's current key, or null when it has no sealed copy or the copy does not open here. */
export async function openApiKey(ctx: SealingContext, account: { user_id: string; api_key_sealed: Buffer | null }): Promise<string | null> {
  if (account.api_key_sealed === null) return null
  return (await keySealer(ctx)).open(account.api_key_sealed, sealContext(account.user_id))
}

/**
 * A webhook endpoint's signing secret, sealed under the same ring (the sender must sign with it, so
 * it cannot be kept as a digest), bound to its endpoint: copied onto another row, it does not open.
 */
const webhookContext = (endpointId: string) => `webhook_secret:${endpointId}`

export async function sealWebhookSecret(ctx: SealingContext, endpointId: string, secret: string): Promise<Buffer> {
  return (await keySealer(ctx)).seal(secret, webhookContext(endpointId))
}

/** The endpoint's secret, or null when its sealed copy does not open with this instance's ring. */
export async function openWebhookSecret(ctx: SealingContext, endpointId: string, sealed: Buffer): Promise<string | null> {
  return (await keySealer(ctx)).open(sealed, webhookContext(endpointId))
}

/**
 * An outbox message's body, and apart from it its password link, sealed under the same ring
 * (issue 34: a copy of the store must not yield working reset links), each bound to its message
 * and part: copied onto another row or swapped with the other part, it does not open.
 */
export type OutboxPart = 'body' | 'link'
const outboxContext = (messageId: string, part: OutboxPart) => `outbox_${part}:${messageId}`

export interface OutboxSealer {
  seal(messageId: string, part: OutboxPart, text: string): Buffer
  /** The text, or null when the sealed value does not open here (altered, another row or part, a key not in the ring). */
  open(messageId: string, part: OutboxPart, sealed: Buffer): string | null
}

/** A sealer for many messages at once (one key look-up). */
export async function outboxSealer(ctx: SealingContext): Promise<OutboxSealer> {
  const sealer = await keySealer(ctx)
  return {
    seal: (messageId, part, text) => sealer.seal(text, outboxContext(messageId, part)),
    open: (messageId, part, sealed) => sealer.open(sealed, outboxContext(messageId, part)),
  }
}

const CONTEXTS: Record<SealedKind, (rowId: string) => string> = {
  api_key: sealContext,
  webhook_secret: webhookContext,
  outbox_body: (messageId) => outboxContext(messageId, 'body'),
  outbox_link: (messageId) => outboxContext(messageId, 'link'),
}
const countsByKind = (): Record<SealedKind, number> => ({ api_key: 0, webhook_secret: 0, outbox_body: 0, outbox_link: 0 })

/** Rows read per statement by a re-seal. */
const RESEAL_BATCH = 200

export interface ResealOutcome {
  /** The key id everything is sealed under now (the ring's first). */
  keyId: number
  /** Values re-sealed under it, by kind. */
  resealed: Record<SealedKind, number>
  /** Values under another key that no key here opens (left as they are), by kind. */
  unopenable: Record<SealedKind, number>
}

function openWithAny(sealers: SecretSealer[], sealed: Buffer, context: string): string | null {
  for (const sealer of sealers) {
    const secret = sealer.open(sealed, context)
    if (secret !== null) return secret
  }
  return null
}

/**
 * Re-seals under the ring's current key every API key copy, webhook secret
 * and outbox message (body and password link) sealed under another key, so that after a rotation, or the move from the
 * key kept in the store to KEY_SEALING_KEY, nothing stays sealed under the
 * old key and it can be dropped. A value is opened with any key of the ring
 * or, when KEY_SEALING_KEY is set, with the key kept in the store (so the move
 * needs no copy of that key), and written back only if it is unchanged (a key
 * rotated meanwhile keeps its new copy). A value no key here opens is left as
 * it is. Run at every start (src/start/base.ts); idempotent, and only reads
 * when there is nothing to do.
 */
export async function resealUnderCurrentKey(ctx: SealingContext): Promise<ResealOutcome> {
  const sealer = await keySealer(ctx)
  const stored = ctx.settings.keySealingKeys === null ? null : await readStoredSecret(ctx.db, 'key_sealing_key')
  const openers = stored === null ? [sealer] : [sealer, new SecretSealer([{ id: STORED_SEALING_KEY_ID, key: stored }])]
  const outcome: ResealOutcome = { keyId: sealer.keyId, resealed: countsByKind(), unopenable: countsByKind() }
  for (const kind of SEALED_KINDS) {
    const context = CONTEXTS[kind]
    let after = ''
    for (;;) {
      const rows = await sealedNotUnder(ctx.db, kind, sealer.keyId, after, RESEAL_BATCH)
      if (rows.length === 0) break
      for (const row of rows) {
        const secret = openWithAny(openers, row.sealed, context(row.id))
        if (secret === null) outcome.unopenable[kind] += 1
        else if (await replaceSealed(ctx.db, kind, row.id, row.sealed, sealer.seal(secret, context(row.id)))) outcome.resealed[kind] += 1
      }
      after = rows[rows.length - 1]!.id
    }
  }
  return outcome
}
