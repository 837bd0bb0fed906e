/**
 * Billing collection status (docs/billing.md draws this table). An account's
 * state is two parts: its standing, which enrollment, authentication and
 * charge outcomes move, and an operator hold laid over it. The hold is kept
 * apart so that lifting it returns the account to whatever its standing has
 * become meanwhile, without remembering a "status before the hold".
 */
export const STANDINGS = ['not_enrolled', 'setup_pending', 'ready', 'payment_failed', 'action_required'] as const
export const HOLDS = ['paused', 'disabled'] as const
export const COLLECTION_STATUSES = [...STANDINGS, ...HOLDS] as const
export type Standing = (typeof STANDINGS)[number]
export type Hold = (typeof HOLDS)[number]
export type CollectionStatus = (typeof COLLECTION_STATUSES)[number]

export interface CollectionState {
  standing: Standing
  hold: Hold | null
}

export type CollectionEvent =
  /** A Net 30 arrangement was requested; an operator approves it later. */
  | { type: 'net30_requested' }
  /** An operator approved Net 30 (with a credit limit). */
  | { type: 'net30_approved' }
  /** A card was attached; some cards need the holder's authentication before they can be used. */
  | { type: 'card_enrolled'; needsAuthentication: boolean }
  /** The holder completed the authentication the card's setup asked for. */
  | { type: 'card_authenticated' }
  /** Charges settled, failed or came back needing authentication; or an invoice was paid or voided. */
  | { type: 'charges_changed'; failed: number; awaitingAction: number }
  | { type: 'hold_set'; hold: Hold | null }

const isStanding = (s: string): s is Standing => STANDINGS.some((x) => x === s)
const isHold = (s: string): s is Hold => HOLDS.some((x) => x === s)

/** Reads the stored columns; an unknown value is treated as not enrolled rather than trusted. */
export function collectionState(row: { collection_status: string; collection_hold: string | null }): CollectionState {
  return {
    standing: isStanding(row.collection_status) ? row.collection_status : 'not_enrolled',
    hold: row.collection_hold !== null && isHold(row.collection_hold) ? row.collection_hold : null,
  }
}

/** The status clients see: an operator hold wins over the standing beneath it. */
export const shownStatus = (s: CollectionState): CollectionStatus => s.hold ?? s.standing

/** The standing after charges change: a failed charge outranks one waiting for the holder. */
function afterCharges(failed: number, awaitingAction: number): Standing {
  if (failed > 0) return 'payment_failed'
  if (awaitingAction > 0) return 'action_required'
  return 'ready'
}

/**
 * The transition function: state × event → state. Holds never change the
 * standing and standing events never lift a hold, so an operator's pause
 * survives a card change and a charge outcome.
 */
export function nextCollection(s: CollectionState, e: CollectionEvent): CollectionState {
  switch (e.type) {
    case 'hold_set':
      return { ...s, hold: e.hold }
    case 'net30_requested':
      // A request waits for approval; an arrangement already in force keeps working meanwhile.
      return s.standing === 'not_enrolled' ? { ...s, standing: 'setup_pending' } : s
    case 'net30_approved':
      return { ...s, standing: 'ready' }
    case 'card_enrolled':
      return { ...s, standing: e.needsAuthentication ? 'setup_pending' : 'ready' }
    case 'card_authenticated':
      return s.standing === 'setup_pending' ? { ...s, standing: 'ready' } : s
    case 'charges_changed':
      // Enrollment not complete: charge outcomes wait until it is (authentication re-derives them).
      if (s.standing === 'not_enrolled' || s.standing === 'setup_pending') return s
      return { ...s, standing: afterCharges(e.failed, e.awaitingAction) }
  }
}

/**
 * Delivery stops only where the service knows it cannot collect (a declined
 * card) or an operator decided it must stop (disabled). The other states
 * wait on a person; the orders already placed bound what they can deliver,
 * and writes answer 402 so that bound does not grow.
 */
export const deliveryStops = (s: CollectionState): boolean => s.hold === 'disabled' || s.standing === 'payment_failed'

/** The operator hold holds collection too: no charge is attempted while either hold is set. */
export const chargesHeld = (s: CollectionState): boolean => s.hold !== null
