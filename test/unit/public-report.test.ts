import assert from 'node:assert/strict'
import { test } from 'node:test'
import { REPORT_UUID_RE } from '../../src/domain/public-report.ts'

test('only lower-case v4 uuids are report uuids', () => {
  assert.ok(REPORT_UUID_RE.test(crypto.randomUUID()))
  assert.ok(!REPORT_UUID_RE.test(crypto.randomUUID().toUpperCase()))
  assert.ok(!REPORT_UUID_RE.test('00000000-0000-0000-0000-000000000000'))
  assert.ok(!REPORT_UUID_RE.test("x' OR 1=1 --"))
})
