import type { Static } from 'typebox'
import type { BillingProfileSchema } from '../../schemas/account.ts'
import type { InvoiceSchema } from '../../schemas/admin/invoices.ts'

/**
 * Billing states in words, each with the advertiser's next step (the states
 * and what they do: docs/billing.md). Wording only: which state an account is
 * in is decided by the services; the billing page and the overview both say
 * it this way.
 */
type Profile = Pick<Static<typeof BillingProfileSchema>, 'collection_status' | 'requested_billing_mode' | 'effective_billing_mode'>

export type Tone = 'ok' | 'warn' | 'bad' | 'neutral'

export interface StatusWords {
  label: string
  next: string
  tone: Tone
}

/** A Net 30 request waits for an operator; a card in `setup_pending` waits for its holder. */
const net30Requested = (p: Profile) => p.requested_billing_mode === 'net30_invoice' && p.effective_billing_mode !== 'net30_invoice'

export function collectionWords(p: Profile): StatusWords {
  switch (p.collection_status) {
    case 'not_enrolled':
      return { label: 'Not set up', tone: 'warn', next: 'Enroll a card for weekly auto-pay, or request Net 30 invoicing.' }
    case 'setup_pending':
      return net30Requested(p)
        ? {
            label: 'Net 30 request under review',
            tone: 'warn',
            next: 'An operator reviews Net 30 requests and sets your credit limit. Meanwhile you can enroll a card for weekly auto-pay instead.',
          }
        : {
            label: 'Card waiting for your authentication',
            tone: 'warn',
            next: 'Your bank asks you to confirm this card before it can be charged: choose "Authenticate card".',
          }
    case 'ready':
      return {
        label: 'Ready',
        tone: 'ok',
        next: net30Requested(p) ? 'Billing works. Your Net 30 request is under review; your card stays in use until it is approved.' : 'Billing works. Nothing to do.',
      }
    case 'payment_failed':
      return {
        label: 'Payment failed',
        tone: 'bad',
        next: 'A charge on your card was declined and your campaigns stopped serving. Enroll a working card: unpaid invoices are charged to it at once.',
      }
    case 'action_required':
      return {
        label: 'Payment waiting for your authentication',
        tone: 'warn',
        next: 'Your bank holds a charge until you confirm it: choose "Authenticate card". Campaigns keep serving meanwhile.',
      }
    case 'paused':
      return {
        label: 'Paused by an operator',
        tone: 'warn',
        next: 'An operator is holding collection; your campaigns keep serving. Contact support: new campaign writes reopen when the hold is lifted.',
      }
    case 'disabled':
      return {
        label: 'Disabled by an operator',
        tone: 'bad',
        next: 'An operator turned billing off for this account and campaigns stopped serving. Contact support.',
      }
  }
}

/** The holder can act on these two: a card setup or a held charge waiting for authentication. */
export function awaitsAuthentication(p: Profile): boolean {
  return p.collection_status === 'action_required' || (p.collection_status === 'setup_pending' && !net30Requested(p))
}

/** An overdue Net 30 invoice blocks writes while collection itself is `ready`. */
export const OVERDUE_WORDS: StatusWords = {
  label: 'Invoice overdue',
  tone: 'bad',
  next: 'A Net 30 invoice is past its due date. Pay it; new campaign writes reopen as soon as the payment is recorded.',
}

export const BILLING_MODE_WORDS: Record<string, string> = {
  disabled: 'None yet',
  weekly_autopay: 'Weekly auto-pay (card charged Mondays 06:00 UTC)',
  net30_invoice: 'Net 30 (invoiced the 1st, 06:00 UTC; due 30 days later)',
  legacy_semimonthly_autopay: 'Semi-monthly auto-pay (card charged the 1st and 15th, 06:00 UTC)',
}

type Invoice = Pick<Static<typeof InvoiceSchema>, 'status' | 'awaiting_authentication'>

export function invoiceStatusWords(i: Invoice): { label: string; tone: Tone } {
  if (i.awaiting_authentication) return { label: 'Waiting for your authentication', tone: 'warn' }
  switch (i.status) {
    case 'open':
      return { label: 'Open', tone: 'warn' }
    case 'paid':
      return { label: 'Paid', tone: 'ok' }
    case 'payment_failed':
      return { label: 'Payment failed', tone: 'bad' }
    case 'void':
      return { label: 'Void (forgiven)', tone: 'neutral' }
  }
}

/** The billing services' refusals (their `detail.reason`), in words, by the field they belong to. */
export const BILLING_REFUSALS: Record<string, { field: 'card_number' | 'form'; words: string }> = {
  card_rejected_by_processor: {
    field: 'card_number',
    words: 'The payment processor refused this card number. Check it, or use one of the test cards listed below.',
  },
  already_net30: { field: 'form', words: 'This account is already on Net 30.' },
  nothing_to_authenticate: { field: 'form', words: 'Nothing is waiting for your authentication any more.' },
  card_setup_failed: { field: 'form', words: 'Your bank did not confirm the card. Enroll it again, or use another card.' },
}
