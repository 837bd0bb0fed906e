import assert from 'node:assert/strict'
import { test } from 'node:test'
import { EligibleLists, runAuction, type Candidate } from '../../src/domain/auction.ts'
import { CTR_PRIOR } from '../../src/domain/ctr.ts'

function candidate(id: string, cpm: number, seq: number, over: Partial<Candidate> = {}): Candidate {
  return {
    campaignId: id, userId: 'u', creativeId: `cr-${id}`, seq, cpmMicros: cpm, kind: 'impression', targetSurface: 'blended', targetCountries: null,
    paceMinutes: null, impressions: 10, billed: 0, activatedAtMs: 0, pausedMs: 0, adLine: id, brand: null, iconUrl: null, destinationUrl: 'https://example.com',
    ...over,
  }
}

test('eligible lists: per surface and country, in auction order, prepared once', () => {
  const lists = new EligibleLists(
    [
      candidate('any', 5, 4),
      candidate('us-ext', 9, 1, { targetSurface: 'extension', targetCountries: new Set(['US']) }),
      candidate('term', 7, 3, { targetSurface: 'terminal' }),
      candidate('eu', 8, 2, { targetCountries: new Set(['DE', 'FR']) }),
    ],
    () => CTR_PRIOR,
  )
  const ids = (surface: 'extension' | 'terminal', country: string | null) => lists.of({ surface, country }).map((c) => c.campaignId)
  assert.deepEqual(ids('extension', 'US'), ['us-ext', 'any'])
  assert.deepEqual(ids('extension', 'DE'), ['eu', 'any'])
  assert.deepEqual(ids('terminal', 'DE'), ['eu', 'term', 'any'])
  assert.deepEqual(ids('terminal', 'US'), ['term', 'any'])
  // No country, or one no campaign names: only untargeted campaigns.
  assert.deepEqual(ids('extension', null), ['any'])
  assert.deepEqual(ids('terminal', 'JP'), ['term', 'any'])
})

test('runAuction: the first eligible campaign that may take an offer wins', () => {
  const all = [candidate('full', 9, 1, { billed: 10 }), candidate('held', 8, 2, { impressions: 3, billed: 1 }), candidate('low', 1, 3)]
  const eligible = new EligibleLists(all, () => CTR_PRIOR).of({ surface: 'extension', country: null })
  assert.equal(runAuction(eligible, 0, () => 0)?.campaignId, 'held')
  // Two outstanding offers fill the held campaign's last two impressions.
  assert.equal(runAuction(eligible, 0, (c) => (c.campaignId === 'held' ? 2 : 0))?.campaignId, 'low')
  assert.equal(runAuction([], 0, () => 0), null)
})
