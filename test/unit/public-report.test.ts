import assert from 'node:assert/strict'
import { test } from 'node:test'
import { REPORT_UUID_RE, reportWindow } from '../../src/domain/public-report.ts'
import { MAX_RANGE_DAYS } from '../../src/domain/stats.ts'

const at = (iso: string) => new Date(iso)
const DAY = 86_400_000

test('a young campaign is charted by the hour from its creation hour to the hour after now', () => {
  const w = reportWindow(at('2026-11-02T09:17:00Z'), at('2026-11-03T10:05:00Z'))
  assert.equal(w.granularity, 'hour')
  assert.equal(w.start.toISOString(), '2026-11-02T09:00:00.000Z')
  assert.equal(w.end.toISOString(), '2026-11-03T11:00:00.000Z')
})

test('past two days it is daily in whole UTC days; past two years monthly, within the /stats limits', () => {
  const daily = reportWindow(at('2026-10-01T15:00:00Z'), at('2026-11-03T10:05:00Z'))
  assert.equal(daily.granularity, 'day')
  assert.equal(daily.start.toISOString(), '2026-10-01T00:00:00.000Z')
  assert.equal(daily.end.toISOString(), '2026-11-04T00:00:00.000Z')
  const monthly = reportWindow(at('2014-03-20T00:00:00Z'), at('2026-11-03T10:05:00Z'))
  assert.equal(monthly.granularity, 'month')
  assert.equal(monthly.start.getUTCDate(), 1)
  assert.ok(monthly.end.getTime() - monthly.start.getTime() <= MAX_RANGE_DAYS.month * DAY)
  for (let days = 0; days < 800; days += 7) {
    const w = reportWindow(at('2026-01-01T12:00:00Z'), new Date(Date.UTC(2026, 0, 1, 12) + days * DAY + 3_600_000))
    assert.ok(w.end.getTime() - w.start.getTime() <= MAX_RANGE_DAYS[w.granularity] * DAY, `${days} days`)
  }
})

test('only lower-case v4 uuids are report uuids', () => {
  assert.ok(REPORT_UUID_RE.test(crypto.randomUUID()))
  assert.ok(!REPORT_UUID_RE.test(crypto.randomUUID().toUpperCase()))
  assert.ok(!REPORT_UUID_RE.test('00000000-0000-0000-0000-000000000000'))
  assert.ok(!REPORT_UUID_RE.test("x' OR 1=1 --"))
})
