import { randomBase62 } from './ids.ts'

/**
 * The payment-processor port. Only a simulated processor ships: no real one
 * is reachable. Its behaviour is fixed by test card (operations.md section 3)
 * and encoded in the payment-method id, so it survives restarts.
 */
export interface AttachedCard {
  paymentMethodId: string
  brand: string
  last4: string
}

export type ChargeResult = { ok: true; chargeId: string } | { ok: false; code: 'card_declined' }

export interface PaymentProcessor {
  /** Attaches a card; null when the processor refuses the number. */
  attachCard(cardNumber: string): Promise<AttachedCard | null>
  /** Charges a payment method; `idempotencyKey` makes a retried charge count once. */
  charge(paymentMethodId: string, amountCents: number, idempotencyKey: string): Promise<ChargeResult>
}

const TEST_CARDS: Record<string, { brand: string; behaviour: 'ok' | 'fail' }> = {
  '4242424242424242': { brand: 'visa', behaviour: 'ok' },
  '4000000000000341': { brand: 'visa', behaviour: 'fail' },
}

export class SimulatedProcessor implements PaymentProcessor {
  async attachCard(cardNumber: string): Promise<AttachedCard | null> {
    const card = TEST_CARDS[cardNumber.replace(/[\s-]/g, '')]
    if (!card) return null
    return { paymentMethodId: `pm_sim_${card.behaviour}_${randomBase62(16)}`, brand: card.brand, last4: cardNumber.slice(-4) }
  }

  async charge(paymentMethodId: string, _amountCents: number, idempotencyKey: string): Promise<ChargeResult> {
    if (paymentMethodId.startsWith('pm_sim_ok_')) return { ok: true, chargeId: `ch_sim_${idempotencyKey}` }
    return { ok: false, code: 'card_declined' }
  }
}
