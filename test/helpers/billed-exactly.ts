import assert from 'node:assert/strict'
import { impressionDebitMicros } from '../../src/domain/money.ts'
import { impressionKeyHex } from './impression-key.ts'

/** A campaign of a multi-instance durability test, as created. */
export interface BoughtCampaign {
  key: string
  id: string
  cpmMicros: number
  impressions: number
}

/** A campaign as its owner reads it through the API after the run. */
export interface ShownCampaign {
  impressions_served: number
  lifetime_spent_micros: number
  status: string
  blocks: { status: string; impressions_served: number }[]
}

/**
 * The durability tests' exactness checks over the measured ledger rows ('impression' and 'view'):
 * every acknowledged view once, nothing measured twice, every view sent measured; per campaign
 * billed ≤ bought, served and spend equal to the ledger's, each debit an n-th debit of the CPM (and
 * exactly 1…bought once sold out), blocks exhausted by the count; the first campaign sold out.
 */
export function assertBilledExactly(
  measured: readonly { impression_key: Buffer; campaign_id: string; event_type: string; debit_micros: number }[],
  sent: { acknowledged: ReadonlySet<string>; viewed: ReadonlySet<string> },
  campaigns: readonly BoughtCampaign[],
  api: ReadonlyMap<string, ShownCampaign>,
): void {
  // By impression key (the ledger row holds no id: migration 0040), as hex.
  const times = new Map<string, number>()
  for (const row of measured) times.set(row.impression_key.toString('hex'), (times.get(row.impression_key.toString('hex')) ?? 0) + 1)
  for (const id of sent.acknowledged) assert.equal(times.get(impressionKeyHex(id)), 1, `acknowledged view ${id.slice(0, 24)}… is in the ledger once`)
  assert.deepEqual([...times].filter(([, n]) => n !== 1), [], 'no impression measured or billed twice')
  assert.equal(times.size, sent.viewed.size, 'every view sent was measured once (each was retried until acknowledged)')

  for (const c of campaigns) {
    const shown = api.get(c.id)!
    const debits = measured.filter((r) => r.campaign_id === c.id && r.event_type === 'impression').map((r) => Number(r.debit_micros))
    assert.ok(debits.length <= c.impressions, `${c.key}: billed ${debits.length} of ${c.impressions} bought`)
    assert.equal(shown.impressions_served, debits.length, `${c.key}: impressions_served is the ledger's count`)
    assert.equal(shown.lifetime_spent_micros, debits.reduce((s, d) => s + d, 0), `${c.key}: lifetime_spent_micros is the ledger's sum`)
    // Each billable impression debits impressionDebitMicros(cpm, n) for a number n of an impression lease
    // (docs/decisions/0096-a-lease-is-a-range-of-a-campaigns-impression-numbers.md). Instances bill disjoint ranges at once, so the numbers in
    // use are exactly 1…billed (and ledger order is not number order) only once the campaign sold out.
    if (debits.length === c.impressions) {
      const expected = Array.from({ length: debits.length }, (_, n) => impressionDebitMicros(c.cpmMicros, n + 1))
      assert.deepEqual([...debits].sort((x, y) => x - y), expected.sort((x, y) => x - y), `${c.key}: the debits are the n-th debits 1…${debits.length}`)
      assert.equal(debits.reduce((s, d) => s + d, 0), (c.cpmMicros * c.impressions) / 1000, `${c.key}: every block of 1,000 sums to the CPM`)
    } else {
      const low = Math.floor(c.cpmMicros / 1000)
      assert.ok(debits.every((d) => d === low || d === low + 1), `${c.key}: every debit is an n-th debit of the CPM`)
    }
    assert.equal(shown.blocks.reduce((s, bl) => s + bl.impressions_served, 0), debits.length, `${c.key}: blocks sum to the count`)
    assert.equal(shown.blocks.filter((bl) => bl.status === 'exhausted').length, Math.floor(debits.length / 1000), `${c.key}: exhausted blocks`)
  }
  const small = campaigns[0]!
  assert.equal(api.get(small.id)!.impressions_served, small.impressions, 'the small campaign ends with exactly its impressions billed')
  assert.equal(api.get(small.id)!.status, 'completed', 'the small campaign completed')
}

/** Whether a campaign's blocks have caught up with its count: the leases settled (each instance settles every second). */
const blocksSettled = (shown: ShownCampaign) =>
  shown.blocks.reduce((s, bl) => s + bl.impressions_served, 0) === shown.impressions_served &&
  shown.blocks.filter((bl) => bl.status === 'exhausted').length === Math.floor(shown.impressions_served / 1000) &&
  (shown.impressions_served < shown.blocks.length * 1000 || shown.status === 'completed')

/**
 * The campaigns as their owner reads them once every block status has followed the leases'
 * settlement, polled rather than slept for, so a busy machine only makes the wait longer (up to
 * `timeoutMs`); after that the map is returned as it is and the exactness checks say what is off.
 */
export async function settledCampaigns(
  campaigns: readonly BoughtCampaign[],
  campaignOf: (id: string) => Promise<ShownCampaign>,
  timeoutMs = 30_000,
): Promise<Map<string, ShownCampaign>> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const api = new Map<string, ShownCampaign>()
    for (const c of campaigns) api.set(c.id, await campaignOf(c.id))
    if ([...api.values()].every(blocksSettled) || performance.now() > deadline) return api
    await new Promise((r) => setTimeout(r, 200))
  }
}
