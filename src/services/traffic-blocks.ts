import { invalid, notFound } from '../domain/errors.ts'
import type { TrafficBlock } from '../domain/invalid-traffic.ts'
import { formatCidr, parseCidr } from '../domain/traffic-source.ts'
import { newId } from '../platform/ids.ts'
import { findTrafficBlock, listTrafficBlocksShown, type TrafficBlockShown } from '../store/traffic-block-reads.ts'
import { deleteTrafficBlock, insertTrafficBlock, type TrafficBlockRow } from '../store/traffic-blocks.ts'
import type { Audited } from './audit.ts'
import type { ServiceContext } from './context.ts'

/**
 * The operators' block list (docs/invalid-traffic.md): address ranges and viewer keys whose views
 * and clicks never bill. Called through services/operator-actions.ts (audited) by the operator API
 * and the console; the caller then reloads the serving path's copy (ServingLimitsCache#reloadNow),
 * which other instances reload within seconds.
 */

export const TRAFFIC_BLOCK_KINDS = ['cidr', 'viewer'] as const
/** A viewer key as the ledger stores it and the console shows it (serving/viewer-keys.ts: base64url). */
export const VIEWER_KEY_PATTERN = /^[A-Za-z0-9_-]{1,128}$/
export const TRAFFIC_BLOCK_NOTE_MAX = 500

export interface TrafficBlockInput {
  kind: string
  value: string
  note?: string | undefined
}

/** The whole list, newest first, with who added each entry. */
export const listTrafficBlockEntries = (ctx: Pick<ServiceContext, 'db'>): Promise<TrafficBlockShown[]> => listTrafficBlocksShown(ctx.db)

/**
 * The entry as stored: a range in its canonical text (`203.0.113.0/24`; a bare address is its /32,
 * or its /64 in IPv6), a viewer key as it is. 400 `{field: 'value'}` with `invalid_format`,
 * `host_bits_set`, `prefix_too_long` (IPv6 beyond /64: a source is a /64) or `prefix_too_short` (wider than an IPv4 /8
 * or an IPv6 /16).
 */
export function trafficBlockOf(input: TrafficBlockInput): TrafficBlock {
  const value = input.value.trim()
  if (input.kind === 'cidr') {
    const parsed = parseCidr(value)
    if ('error' in parsed) throw invalid('value', parsed.error)
    return { kind: 'cidr', value: formatCidr(parsed) }
  }
  if (input.kind === 'viewer') {
    if (!VIEWER_KEY_PATTERN.test(value)) throw invalid('value', 'invalid_format')
    return { kind: 'viewer', value }
  }
  throw invalid('kind', 'invalid_value', { allowed: TRAFFIC_BLOCK_KINDS })
}

/** Adds an entry; an entry of that kind and value already listed is returned as it is (`created` false). */
export async function addTrafficBlock(ctx: ServiceContext & Audited, input: TrafficBlockInput): Promise<{ row: TrafficBlockRow; created: boolean }> {
  const block = trafficBlockOf(input)
  const note = (input.note ?? '').trim()
  if (note.length > TRAFFIC_BLOCK_NOTE_MAX) throw invalid('note', 'too_long', { limit: TRAFFIC_BLOCK_NOTE_MAX })
  const { actor } = ctx.audit
  return insertTrafficBlock(ctx.db, {
    block_id: newId('tfb'),
    ...block,
    note,
    created_at: ctx.clock.now(),
    // A console operator's id; the operator API acts as the token.
    created_by: actor.kind === 'operator' ? actor.id : 'token',
  })
}

/** Removes an entry: the removed entry, or 404. */
export async function removeTrafficBlock(ctx: Pick<ServiceContext, 'db'>, blockId: string): Promise<TrafficBlockRow> {
  const removed = await deleteTrafficBlock(ctx.db, blockId)
  if (!removed) throw notFound('traffic block')
  return removed
}

/** One entry, for the audit log's before and after. */
export const readTrafficBlock = (ctx: Pick<ServiceContext, 'db'>, blockId: string): Promise<TrafficBlockRow | null> => findTrafficBlock(ctx.db, blockId)
