import { createHash } from 'node:crypto'
import assert from 'node:assert/strict'
import type { Client, TestHarness } from './api.ts'
import { perFile } from './file-scope.ts'

/**
 * A country code of its own per test (AA, AB, …; each test file runs its own
 * service): campaigns targeted at it compete only with each other, so tests
 * in one file never see each other's auctions.
 */
export function privateCountry(): string {
  const n = perFile.country++ % (26 * 26)
  return String.fromCharCode(65 + Math.floor(n / 26), 65 + (n % 26))
}

export interface Decision {
  impression_id: string
  ad_line: string
  brand: string | null
  icon_url: string | null
  view_url: string
  click_url: string
}

/**
 * An address of its own for each simulated viewer (in 198.18.0.0/15, the benchmarking range), as real
 * viewers sit on many networks: the invalid-traffic bounds (50 viewers per source per day by default)
 * then judge the tests' traffic as they would real traffic. Tests of those bounds send their own.
 */
export function viewerAddress(viewerId: string): string {
  const h = createHash('sha256').update(viewerId).digest()
  return `198.${18 + (h[0]! & 1)}.${h[1]}.${h[2]}`
}

/** A decision for one viewer, sent from the viewer's own address (`viewerAddress`) unless `address` names one. */
export async function decide(client: Client, body: { surface?: string; viewer_id?: string; country?: string; topics?: string[] }, address?: string): Promise<Decision | null> {
  const viewerId = body.viewer_id ?? `viewer-${Math.random()}`
  const res = await client.post(
    '/serve/v1/decisions',
    { surface: 'extension', ...body, viewer_id: viewerId },
    { headers: { 'x-forwarded-for': address ?? viewerAddress(viewerId) } },
  )
  if (res.status === 204) return null
  assert.equal(res.status, 200, res.text)
  return res.body
}

export async function view(client: Client, impressionId: string, dwellMs: number): Promise<number> {
  return (await client.post(`/serve/v1/impressions/${impressionId}/view`, { dwell_ms: dwellMs })).status
}

/**
 * Waits until every offer made so far is counted in the store (`offer_counts`). Offers are counted in
 * memory, not stored as ledger rows, and reach the store within FLUSH_EVERY_MS (src/serving/minute-counter.ts: 2 s real time);
 * a test that reads them back (the `events` metric, the auction quote) flushes the counts first. The
 * ledger's queued views and clicks go first too.
 */
export async function offersWritten(h: TestHarness): Promise<void> {
  await h.svc.service.serving.writer.flush()
  await h.svc.service.serving.offers.flush()
}

export async function advance(h: TestHarness, seconds: number): Promise<void> {
  const res = await h.admin.post('/admin/v1/clock', { advance_seconds: seconds })
  assert.equal(res.status, 200, res.text)
}

/** Billed impressions of a campaign, as its owner reads them. */
export async function served(adv: Client, campaignId: string): Promise<number> {
  const res = await adv.get(`/v1/campaigns/${campaignId}`)
  assert.equal(res.status, 200)
  return res.body.impressions_served
}

/**
 * Delivers `n` billable impressions to whatever wins the auction for `country`
 * (distinct viewers, dwell 10 s): n decisions, ten seconds of service time, n
 * views. Returns how many decisions were filled.
 */
export async function deliver(h: TestHarness, country: string, n: number, surface = 'extension'): Promise<number> {
  const run = perFile.delivery++
  const offers = await Promise.all(
    Array.from({ length: n }, (_, i) => decide(h.anonymous, { country, surface, viewer_id: `deliver-${process.pid}-${run}-${i}` })),
  )
  await advance(h, 10)
  const filled = offers.filter((o): o is Decision => o !== null)
  for (const status of await Promise.all(filled.map((o) => view(h.anonymous, o.impression_id, 10_000)))) assert.equal(status, 204)
  return filled.length
}
