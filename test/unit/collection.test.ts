import assert from 'node:assert/strict'
import { test } from 'node:test'
import { billingBlock, campaignWrites, writeDenial, type AccessFacts } from '../../src/domain/access.ts'
import {
  chargesHeld,
  collectionState,
  deliveryStops,
  nextCollection,
  shownStatus,
  type CollectionEvent,
  type CollectionState,
  type Standing,
} from '../../src/domain/collection.ts'

const at = (standing: Standing, hold: CollectionState['hold'] = null): CollectionState => ({ standing, hold })
const step = (s: CollectionState, ...events: CollectionEvent[]) => events.reduce(nextCollection, s)

test('collection: enrollment moves not_enrolled to setup_pending or ready', () => {
  assert.deepEqual(step(at('not_enrolled'), { type: 'net30_requested' }), at('setup_pending'))
  assert.deepEqual(step(at('setup_pending'), { type: 'net30_approved' }), at('ready'))
  assert.deepEqual(step(at('not_enrolled'), { type: 'card_enrolled', needsAuthentication: false }), at('ready'))
  assert.deepEqual(step(at('not_enrolled'), { type: 'card_enrolled', needsAuthentication: true }), at('setup_pending'))
  assert.deepEqual(step(at('setup_pending'), { type: 'card_authenticated' }), at('ready'))
  // A Net 30 request leaves an arrangement already in force working.
  assert.deepEqual(step(at('ready'), { type: 'net30_requested' }), at('ready'))
  assert.deepEqual(step(at('payment_failed'), { type: 'card_authenticated' }), at('payment_failed'))
})

test('collection: charge outcomes; a failure outranks a charge awaiting the holder', () => {
  const charges = (failed: number, awaitingAction: number): CollectionEvent => ({ type: 'charges_changed', failed, awaitingAction })
  assert.deepEqual(step(at('ready'), charges(1, 0)), at('payment_failed'))
  assert.deepEqual(step(at('ready'), charges(0, 1)), at('action_required'))
  assert.deepEqual(step(at('action_required'), charges(1, 1)), at('payment_failed'))
  assert.deepEqual(step(at('payment_failed'), charges(0, 0)), at('ready'))
  assert.deepEqual(step(at('action_required'), charges(0, 0)), at('ready'))
  // Enrollment not complete: charge outcomes wait for it.
  assert.deepEqual(step(at('setup_pending'), charges(0, 1)), at('setup_pending'))
  assert.deepEqual(step(at('not_enrolled'), charges(0, 0)), at('not_enrolled'))
})

test('collection: an operator hold lies over the standing and is lifted to whatever it became', () => {
  const paused = step(at('ready'), { type: 'hold_set', hold: 'paused' })
  assert.equal(shownStatus(paused), 'paused')
  const failedMeanwhile = step(paused, { type: 'charges_changed', failed: 1, awaitingAction: 0 })
  assert.equal(shownStatus(failedMeanwhile), 'paused', 'a charge outcome never lifts a hold')
  assert.deepEqual(step(failedMeanwhile, { type: 'hold_set', hold: null }), at('payment_failed'))
  assert.equal(shownStatus(step(paused, { type: 'hold_set', hold: 'disabled' })), 'disabled')
  assert.ok(chargesHeld(paused) && chargesHeld(at('ready', 'disabled')) && !chargesHeld(at('ready')))
})

test('collection: delivery stops for a declined card or a disabled account only', () => {
  const stops = (s: CollectionState) => deliveryStops(s)
  assert.deepEqual(
    (['not_enrolled', 'setup_pending', 'ready', 'payment_failed', 'action_required'] as const).map((x) => stops(at(x))),
    [false, false, false, true, false],
  )
  assert.equal(stops(at('ready', 'paused')), false)
  assert.equal(stops(at('ready', 'disabled')), true)
  assert.equal(stops(at('payment_failed', 'paused')), true)
})

test('collection: stored columns are read defensively', () => {
  assert.deepEqual(collectionState({ collection_status: 'ready', collection_hold: 'paused' }), at('ready', 'paused'))
  assert.deepEqual(collectionState({ collection_status: 'bogus', collection_hold: 'bogus' }), at('not_enrolled'))
})

const writer: AccessFacts = {
  writes_disabled: false,
  write_approved: true,
  terms_accepted: true,
  effective_billing_mode: 'net30_invoice',
  collection_status: 'ready',
  collection_hold: null,
  overdue_invoice_ids: [],
}

test('billing block: each collection status has its own 402 reason; an overdue invoice blocks a ready account', () => {
  const reason = (f: Partial<AccessFacts>) => billingBlock({ ...writer, ...f })
  assert.equal(reason({}), null)
  assert.equal(reason({ collection_status: 'not_enrolled', effective_billing_mode: 'disabled' }), 'billing_not_enrolled')
  assert.equal(reason({ collection_status: 'setup_pending', effective_billing_mode: 'disabled' }), 'billing_setup_pending')
  assert.equal(reason({ collection_status: 'payment_failed' }), 'payment_failed')
  assert.equal(reason({ collection_status: 'action_required' }), 'payment_action_required')
  assert.equal(reason({ collection_hold: 'paused' }), 'billing_paused')
  assert.equal(reason({ collection_hold: 'disabled', collection_status: 'payment_failed' }), 'billing_disabled')
  assert.equal(reason({ overdue_invoice_ids: ['inv_1'] }), 'invoice_overdue')
  // The collection status speaks before an overdue invoice.
  assert.equal(reason({ collection_hold: 'paused', overdue_invoice_ids: ['inv_1'] }), 'billing_paused')
})

test('write denial: 403 wins over 402; the 402 names its reason and the overdue invoices', () => {
  const overdue = { ...writer, overdue_invoice_ids: ['inv_a', 'inv_b'] }
  assert.equal(campaignWrites(overdue), 'billing_required')
  assert.deepEqual(writeDenial(overdue), {
    status: 402,
    detail: { field: 'billing', reason: 'invoice_overdue', collection_status: 'ready', invoice_ids: ['inv_a', 'inv_b'] },
  })
  assert.deepEqual(writeDenial({ ...writer, collection_hold: 'disabled' })?.detail, {
    field: 'billing',
    reason: 'billing_disabled',
    collection_status: 'disabled',
  })
  assert.equal(writeDenial({ ...overdue, terms_accepted: false })?.status, 403)
  assert.equal(writeDenial(writer), null)
})
