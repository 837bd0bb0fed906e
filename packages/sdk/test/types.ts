/**
 * Compile-time checks of the SDK's types (the root `tsc --noEmit` checks this file; it never
 * runs): each `@ts-expect-error` fails the typecheck when the line below it would compile.
 */
import { AdvertiserClient, type Campaign } from '../src/index.ts'

export async function wrongFieldsDoNotCompile(client: AdvertiserClient): Promise<void> {
  // @ts-expect-error: `cpm` is not a field of CampaignCreate (it is `cpm_usd`)
  await client.campaigns.create({ ad_line: 'Typed', destination_url: 'https://acme.dev', cpm: 2, impressions: 1000 })
  // @ts-expect-error: `impressions` is a number
  await client.campaigns.create({ ad_line: 'Typed', destination_url: 'https://acme.dev', cpm_usd: 2, impressions: '1000' })
  // @ts-expect-error: a required field (`destination_url`) is missing
  await client.campaigns.create({ ad_line: 'Typed', cpm_usd: 2, impressions: 1000 })
  // @ts-expect-error: `granularity` is hour, day or month
  await client.stats({ granularity: 'week' })
  const campaign: Campaign = await client.campaigns.get('cmp_x')
  // @ts-expect-error: a campaign has no `spend` (it has `lifetime_spent_micros`)
  void campaign.spend
  // The right fields compile.
  await client.campaigns.create({ ad_line: 'Typed', destination_url: 'https://acme.dev', cpm_usd: 2, impressions: 1000, target_surface: 'terminal' })
  void campaign.lifetime_spent_micros
}

export async function windowsCompile(client: AdvertiserClient): Promise<void> {
  // One name for a window everywhere: from (inclusive) and to (exclusive).
  await client.stats({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' })
  await client.exports.create({ from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' })
  // The API's own names still compile (deprecated).
  await client.stats({ start: '2026-11-01T00:00:00Z', end: '2026-11-02T00:00:00Z' })
  // @ts-expect-error: stats has no `since`
  await client.stats({ since: '2026-11-01' })
}
