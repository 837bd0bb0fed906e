import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkExposure } from '../../src/domain/exposure.ts'

const noCredit = { net30CreditLimitCents: null }

test('the outstanding-balance cap is reached when the not-yet-invoiced balance is at or above it', () => {
  assert.equal(checkExposure({ pending_cents: 999, owed_cents: 999 }, { capUsd: 10, ...noCredit }), null)
  assert.deepEqual(checkExposure({ pending_cents: 1000, owed_cents: 1000 }, { capUsd: 10, ...noCredit }), {
    reason: 'outstanding_balance_cap',
    cap_usd: 10,
    outstanding_cents: 1000,
  })
  // A fractional cent of cap is not rounded away.
  assert.equal(checkExposure({ pending_cents: 5, owed_cents: 5 }, { capUsd: 0.0501, ...noCredit }), null)
  assert.equal(checkExposure({ pending_cents: 0, owed_cents: 0 }, { capUsd: 0, ...noCredit })?.reason, 'outstanding_balance_cap')
  assert.equal(checkExposure({ pending_cents: 10 ** 9, owed_cents: 10 ** 9 }, { capUsd: null, ...noCredit }), null)
})

test('a Net 30 credit limit is reached by the payable balance, credits included', () => {
  const limits = { capUsd: null, net30CreditLimitCents: 1000 }
  assert.equal(checkExposure({ pending_cents: 0, owed_cents: 999 }, limits), null)
  assert.deepEqual(checkExposure({ pending_cents: 0, owed_cents: 1000 }, limits), { reason: 'credit_limit', credit_limit_cents: 1000, owed_cents: 1000 })
  assert.equal(checkExposure({ pending_cents: 2000, owed_cents: -30 }, limits), null)
})
