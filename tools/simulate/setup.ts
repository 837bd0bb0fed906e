/**
 * `--setup`: an approved, billed advertiser with a few campaigns, made through
 * the operator and advertiser APIs before the run; after it, the campaigns'
 * billed impressions are checked against what the simulator expected.
 */
import { jsonObject, type OriginPool, type PoolReply } from '../lib/http.ts'
import type { Counters, Summary } from './report.ts'

interface SetupCampaign {
  adLine: string
  cpm: number
  impressions: number
  surface: 'extension' | 'terminal'
  countries?: string[]
  paceMinutes?: number
}

const SETUP_CAMPAIGNS: SetupCampaign[] = [
  { adLine: 'Terminal-native error tracking with Tracewell', cpm: 6.5, impressions: 5_000, surface: 'terminal', countries: ['DE', 'FR', 'GB', 'NL'] },
  { adLine: 'Fix flaky tests in minutes with Steadyrun', cpm: 5, impressions: 10_000, surface: 'extension', countries: ['US', 'CA'], paceMinutes: 60 },
  { adLine: 'Faster builds with Nimbus CI', cpm: 3, impressions: 20_000, surface: 'extension' },
  { adLine: 'Deploy previews in seconds with Glide', cpm: 2.25, impressions: 20_000, surface: 'terminal' },
]

/** The source address of the set-up's calls (outside the viewers' range). */
const SETUP_IP = '198.19.255.254'

export interface Setup {
  userId: string
  apiKey: string
  campaigns: NonNullable<Summary['setup']>['campaigns']
}

async function expect(res: PoolReply, ok: number[], what: string): Promise<Record<string, unknown>> {
  if (!ok.includes(res.status)) throw new Error(`setup: ${what} answered ${res.status}: ${res.text.slice(0, 300)}`)
  return jsonObject(res.text)
}

/** An account made by the operator, approved for writes, terms accepted, paying by card: what an advertiser needs to buy. */
export async function approvedAdvertiser(http: OriginPool, admin: Record<string, string>, email: string): Promise<{ userId: string; apiKey: string }> {
  const account = await expect(await http.call('POST', '/admin/v1/accounts', { email }, admin), [201], 'POST /admin/v1/accounts')
  const userId = String(account.user_id)
  for (const [path, body] of [
    ['write-approval', { approved: true }],
    ['terms', { accepted: true }],
    ['billing', { mode: 'weekly_autopay', card_number: '4242424242424242' }],
  ] as const) {
    await expect(await http.call('POST', `/admin/v1/accounts/${userId}/${path}`, body, admin), [200], `POST /admin/v1/accounts/{id}/${path}`)
  }
  return { userId, apiKey: String(account.api_key) }
}

export async function runSetup(http: OriginPool, adminToken: string, tag: string): Promise<Setup> {
  const ip = { 'x-forwarded-for': SETUP_IP }
  const admin = { ...ip, authorization: `Bearer ${adminToken}` }
  const { userId, apiKey } = await approvedAdvertiser(http, admin, `simulator-${tag}@example.com`)
  const auth = { ...ip, 'x-service-user-id': userId, 'x-service-api-key': apiKey }
  const campaigns: Setup['campaigns'] = []
  // A tag of this setup in each line: the summary attributes wins by ad line, and an earlier
  // setup on the same service has the same lines (and wins equal-bid ties: it was created first).
  const lineTag = tag.slice(-4)
  for (const [i, c] of SETUP_CAMPAIGNS.entries()) {
    const adLine = `${c.adLine} [${lineTag}]`
    const body: Record<string, unknown> = {
      ad_line: adLine,
      destination_url: `https://example.com/sim/${i}`,
      cpm_usd: c.cpm,
      impressions: c.impressions,
      idempotency_key: `sim-${tag}-${i}`,
      name: `Simulator ${tag} #${i + 1}`,
      target_surface: c.surface,
      ...(c.countries ? { target_countries: c.countries } : {}),
      ...(c.paceMinutes ? { pace_minutes: c.paceMinutes } : {}),
    }
    let res = await http.call('POST', '/v1/campaigns', body, auth)
    // Operators may have switched targeting off: order the campaign without it.
    for (let retry = 0; retry < 2 && res.status === 400; retry++) {
      const reason = String(jsonObject(res.text).reason ?? '')
      if (reason === 'surface_split_not_enabled') delete body.target_surface
      else if (reason === 'country_targeting_not_enabled') delete body.target_countries
      else break
      res = await http.call('POST', '/v1/campaigns', body, auth)
    }
    const created = await expect(res, [201], `POST /v1/campaigns (${adLine})`)
    const campaignId = String(created.campaign_id)
    if (created.moderation_status === 'pending') {
      await expect(await http.call('POST', `/admin/v1/campaigns/${campaignId}/moderation`, { status: 'approved' }, admin), [200], 'moderation')
    }
    campaigns.push({
      campaignId,
      adLine,
      cpmUsd: c.cpm,
      surface: typeof body.target_surface === 'string' ? body.target_surface : 'default',
      countries: Array.isArray(body.target_countries) ? (body.target_countries as string[]) : null,
    })
  }
  return { userId, apiKey, campaigns }
}

/** The setup campaigns' billed impressions next to the views the simulator expected billable for them; null (with a note) if unreadable. */
export async function checkBilling(http: OriginPool, setup: Setup, c: Counters, note: (msg: string) => void): Promise<Summary['billing']> {
  const res = await http.call('GET', '/v1/campaigns', undefined, {
    'x-forwarded-for': SETUP_IP,
    'x-service-user-id': setup.userId,
    'x-service-api-key': setup.apiKey,
  })
  if (res.status !== 200) {
    note(`note: GET /v1/campaigns answered ${res.status}; billing not confirmed`)
    return null
  }
  const list = (jsonObject(res.text).campaigns ?? []) as { campaign_id: string; impressions_served: number }[]
  const ours = new Set(setup.campaigns.map((x) => x.campaignId))
  const ourLines = new Set(setup.campaigns.map((x) => x.adLine))
  return {
    billedBySetupCampaigns: list.filter((x) => ours.has(x.campaign_id)).reduce((s, x) => s + x.impressions_served, 0),
    expectedBillableForSetupCampaigns: [...c.expectedByAdLine].filter(([k]) => ourLines.has(k)).reduce((s, [, n]) => s + n, 0),
  }
}
