import { randomBase62 } from './ids.ts'

/**
 * The payment-processor port. Only a simulated processor ships: no real one
 * is reachable. Its behaviour is fixed by test card (operations.md section 3)
 * and encoded in the payment-method id, so it survives restarts.
 *
 * Like a real processor's setup and payment intents, a card's setup or a
 * charge may come back `requires_action`: the card holder must authenticate
 * (3-D Secure) before it completes, and `confirmSetup`/`confirmCharge` stand
 * for the holder having done so.
 */
export interface AttachedCard {
  paymentMethodId: string
  brand: string
  last4: string
  /** The card is attached but cannot be charged until the holder authenticates its setup. */
  setupRequiresAction: boolean
}

export type ChargeResult =
  | { status: 'succeeded'; chargeId: string }
  | { status: 'failed'; code: 'card_declined' | 'no_payment_method' }
  /** The processor holds the charge until the holder authenticates it. */
  | { status: 'requires_action'; chargeId: string }

export interface PaymentProcessor {
  /** Attaches a card; null when the processor refuses the number. */
  attachCard(cardNumber: string): Promise<AttachedCard | null>
  /** The holder completed the authentication the card's setup asked for; false for an unknown card. */
  confirmSetup(paymentMethodId: string): Promise<boolean>
  /** Charges a payment method; `idempotencyKey` makes a retried charge count once. */
  charge(paymentMethodId: string, amountCents: number, idempotencyKey: string): Promise<ChargeResult>
  /** Completes a charge that was `requires_action`, once the holder authenticated it. */
  confirmCharge(chargeId: string): Promise<ChargeResult>
}

type Behaviour = 'ok' | 'fail' | 'auth'

const TEST_CARDS: Record<string, { brand: string; behaviour: Behaviour }> = {
  '4242424242424242': { brand: 'visa', behaviour: 'ok' },
  '4000000000000341': { brand: 'visa', behaviour: 'fail' },
  // Attaches, but its setup and every charge need the holder's authentication.
  '4000002500003155': { brand: 'visa', behaviour: 'auth' },
}

export class SimulatedProcessor implements PaymentProcessor {
  async attachCard(cardNumber: string): Promise<AttachedCard | null> {
    const digits = cardNumber.replace(/[\s-]/g, '')
    const card = TEST_CARDS[digits]
    if (!card) return null
    return {
      paymentMethodId: `pm_sim_${card.behaviour}_${randomBase62(16)}`,
      brand: card.brand,
      last4: digits.slice(-4),
      setupRequiresAction: card.behaviour === 'auth',
    }
  }

  async confirmSetup(paymentMethodId: string): Promise<boolean> {
    return paymentMethodId.startsWith('pm_sim_')
  }

  async charge(paymentMethodId: string, _amountCents: number, idempotencyKey: string): Promise<ChargeResult> {
    if (paymentMethodId.startsWith('pm_sim_ok_')) return { status: 'succeeded', chargeId: `ch_sim_${idempotencyKey}` }
    if (paymentMethodId.startsWith('pm_sim_auth_')) return { status: 'requires_action', chargeId: `ch_sim_${idempotencyKey}` }
    return { status: 'failed', code: 'card_declined' }
  }

  async confirmCharge(chargeId: string): Promise<ChargeResult> {
    // The simulated holder's authentication always succeeds; the charge keeps its id.
    return chargeId.startsWith('ch_sim_') ? { status: 'succeeded', chargeId } : { status: 'failed', code: 'card_declined' }
  }
}
