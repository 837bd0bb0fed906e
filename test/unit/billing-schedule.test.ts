import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import {
  BILLING_MODES,
  CADENCE_OF,
  dueDate,
  isInstant,
  lastInstant,
  lastRun,
  modesDueAt,
  nextInstant,
  nextInvoicingInstant,
  nextRun,
  type Cadence,
} from '../../src/domain/billing-schedule.ts'

const CADENCES: Cadence[] = ['weekly_monday_0600_utc', 'monthly_1st_0600_utc_net30', 'semi_monthly_1_15']
const iso = (d: Date) => d.toISOString()

test('each cadence has its own instants at 06:00 UTC', () => {
  // 2026-12-01 is a Tuesday, 2026-12-07 a Monday, 2026-12-15 a Tuesday.
  assert.equal(iso(nextRun('weekly_autopay', new Date('2026-11-30T06:00:00Z'))), '2026-12-07T06:00:00.000Z')
  assert.equal(iso(nextRun('net30_invoice', new Date('2026-11-30T06:00:00Z'))), '2026-12-01T06:00:00.000Z')
  assert.equal(iso(nextRun('legacy_semimonthly_autopay', new Date('2026-12-01T06:00:00Z'))), '2026-12-15T06:00:00.000Z')
  assert.equal(iso(nextRun('legacy_semimonthly_autopay', new Date('2026-12-15T06:00:00Z'))), '2027-01-01T06:00:00.000Z')
  assert.equal(iso(nextRun('legacy_semimonthly_autopay', new Date('2026-12-14T23:00:00Z'))), '2026-12-15T06:00:00.000Z')
  assert.equal(iso(lastRun('legacy_semimonthly_autopay', new Date('2026-12-15T05:59:59.999Z'))), '2026-12-01T06:00:00.000Z')
  assert.equal(iso(lastRun('net30_invoice', new Date('2027-01-01T05:00:00Z'))), '2026-12-01T06:00:00.000Z')
  assert.equal(iso(lastRun('weekly_autopay', new Date('2026-12-07T06:00:00Z'))), '2026-12-07T06:00:00.000Z')
})

test('an invoicing occurrence finalizes only the modes whose cadence has an instant there', () => {
  assert.deepEqual(modesDueAt(new Date('2026-12-07T06:00:00Z')), ['weekly_autopay']) // a Monday
  assert.deepEqual(modesDueAt(new Date('2026-12-01T06:00:00Z')), ['net30_invoice', 'legacy_semimonthly_autopay']) // a Tuesday
  assert.deepEqual(modesDueAt(new Date('2026-12-15T06:00:00Z')), ['legacy_semimonthly_autopay'])
  assert.deepEqual(modesDueAt(new Date('2027-02-01T06:00:00Z')), [...BILLING_MODES]) // a Monday and the 1st
  assert.deepEqual(modesDueAt(new Date('2026-12-07T06:00:01Z')), [])
  assert.equal(iso(nextInvoicingInstant(new Date('2026-12-07T06:00:00Z'))), '2026-12-14T06:00:00.000Z')
  assert.equal(iso(nextInvoicingInstant(new Date('2026-12-14T06:00:00Z'))), '2026-12-15T06:00:00.000Z')
})

test('Net 30 is due thirty days after the period end; auto-pay at it', () => {
  const end = new Date('2026-12-01T06:00:00Z')
  assert.equal(iso(dueDate('net30_invoice', end)), '2026-12-31T06:00:00.000Z')
  assert.equal(iso(dueDate('legacy_semimonthly_autopay', end)), iso(end))
})

test('instants are consistent: next is strictly after, last is at or before, nothing in between', () => {
  const instant = fc.date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2040-01-01T00:00:00Z'), noInvalidDate: true })
  fc.assert(
    fc.property(fc.constantFrom(...CADENCES), instant, (cadence, t) => {
      const next = nextInstant(cadence, t)
      const last = lastInstant(cadence, t)
      assert.ok(next.getTime() > t.getTime() && last.getTime() <= t.getTime())
      assert.ok(isInstant(cadence, next) && isInstant(cadence, last))
      assert.equal(iso(nextInstant(cadence, last)), iso(next), 'no instant between last and next')
      assert.equal(iso(lastInstant(cadence, new Date(next.getTime() - 1))), iso(last))
      assert.equal(next.getUTCHours(), 6)
      assert.equal(next.getUTCMinutes() + next.getUTCSeconds() + next.getUTCMilliseconds(), 0)
      if (cadence === 'weekly_monday_0600_utc') assert.equal(next.getUTCDay(), 1)
      if (cadence === 'monthly_1st_0600_utc_net30') assert.equal(next.getUTCDate(), 1)
      if (cadence === 'semi_monthly_1_15') assert.ok([1, 15].includes(next.getUTCDate()))
    }),
    { numRuns: 500, seed: 19 },
  )
})

test('every mode names its cadence', () => {
  assert.deepEqual(
    BILLING_MODES.map((m) => CADENCE_OF[m]),
    CADENCES,
  )
})
