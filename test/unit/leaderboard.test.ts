import assert from 'node:assert/strict'
import { test } from 'node:test'
import { brandKey, leaderboardBehind, leaderboardWindow, rankBrands } from '../../src/domain/leaderboard.ts'

const at = (iso: string) => Date.parse(iso)
const iso = (ms: number) => new Date(ms).toISOString()

test('the window: 30 whole UTC days ending at today\'s midnight, or earlier while the rollups have not closed yesterday', () => {
  const now = at('2026-11-10T09:00:00Z')
  const caught = leaderboardWindow(now, '2026-11-09')
  assert.deepEqual([iso(caught.startMs), iso(caught.endMs)], ['2026-10-11T00:00:00.000Z', '2026-11-10T00:00:00.000Z'])
  assert.equal(leaderboardBehind(caught, now), false)
  const lagging = leaderboardWindow(now, '2026-11-07')
  assert.deepEqual([iso(lagging.startMs), iso(lagging.endMs)], ['2026-10-09T00:00:00.000Z', '2026-11-08T00:00:00.000Z'])
  assert.equal(leaderboardBehind(lagging, now), true)
  // A watermark ahead of the clock (never in practice) does not move the window past today.
  assert.equal(iso(leaderboardWindow(now, '2026-11-20').endMs), '2026-11-10T00:00:00.000Z')
  // Nothing rolled up yet: the window ends today and counts nothing.
  assert.equal(iso(leaderboardWindow(now, null).endMs), '2026-11-10T00:00:00.000Z')
  // Midnight itself belongs to the new day.
  assert.equal(iso(leaderboardWindow(at('2026-11-10T00:00:00Z'), '2026-11-09').endMs), '2026-11-10T00:00:00.000Z')
})

test('brands are compared trimmed, composed and case-folded; a blank brand is none', () => {
  assert.equal(brandKey('  Acme CI '), 'acme ci')
  assert.equal(brandKey('ACME ci'), brandKey('acme CI'))
  assert.equal(brandKey('STRASSE'), brandKey('straße'))
  assert.equal(brandKey('Cafe\u0301'), brandKey('Café'))
  assert.equal(brandKey('   '), null)
  assert.equal(brandKey(''), null)
})

test('ranking: merged spellings, the spelling with the most impressions shown, ties by folded name, zeros dropped, a cap', () => {
  const rows = rankBrands([
    { brand: 'Acme', impressions: 3 },
    { brand: 'ACME', impressions: 5 },
    { brand: ' acme ', impressions: 1 },
    { brand: 'beta', impressions: 9 },
    { brand: 'Zed', impressions: 4 },
    { brand: 'alpha', impressions: 4 },
    { brand: 'Nothing', impressions: 0 },
    { brand: '  ', impressions: 7 },
  ])
  assert.deepEqual(rows, [
    { brand: 'ACME', impressions: 9 },
    { brand: 'beta', impressions: 9 },
    { brand: 'alpha', impressions: 4 },
    { brand: 'Zed', impressions: 4 },
  ])
  // Equal impressions between spellings: the first in code order is shown; spellings equal once trimmed are one.
  assert.deepEqual(rankBrands([{ brand: 'beta', impressions: 2 }, { brand: 'Beta', impressions: 2 }]), [{ brand: 'Beta', impressions: 4 }])
  assert.deepEqual(rankBrands([{ brand: 'beta ', impressions: 2 }, { brand: 'beta', impressions: 1 }, { brand: 'Beta', impressions: 2 }]), [{ brand: 'beta', impressions: 5 }])
  const many = Array.from({ length: 150 }, (_, i) => ({ brand: `b${String(i).padStart(3, '0')}`, impressions: 1 + (i % 3) }))
  const top = rankBrands(many)
  assert.equal(top.length, 100)
  assert.equal(rankBrands(many, 5).length, 5)
  for (let i = 1; i < top.length; i++) assert.ok(top[i - 1]!.impressions >= top[i]!.impressions)
})
