/**
 * The status line as Claude Code runs it: the real bin every 300 ms against a started service on
 * the system clock, with the service reachable, stalled mid-run, and shared by two terminals.
 */
import assert from 'node:assert/strict'
import { after, test } from 'node:test'
import { campaignBody, useService, type Advertiser } from '../../../../test/helpers/api.ts'
import { offersWritten, privateCountry } from '../../../../test/helpers/serving.ts'
import { acknowledgedViews, invoke, invokeEvery, sleep, startProxy, stateDirFor, unsent, waitFor, type Invocation, type ServiceProxy } from './client.ts'

const h = useService({ CLOCK: 'system' }, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
let proxy: ServiceProxy | undefined
let adv: Advertiser | undefined
after(async () => {
  await proxy?.close()
})

/** An invocation that waited on the network would take the refresher's request timeout (3 s); one that answers from local state takes Node's start-up. */
const BOUND_MS = 1_500

/** A campaign of its own country on the terminal surface, behind the recording proxy. */
async function terminalCampaign(country: string, adLine: string): Promise<{ campaignId: string; proxy: ServiceProxy; adv: Advertiser }> {
  proxy ??= await startProxy(h.baseUrl)
  adv ??= await h.advertiser()
  const res = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], target_surface: 'terminal', impressions: 1000, ad_line: adLine, brand: 'Acme' }))
  assert.equal(res.status, 201, res.text)
  return { campaignId: res.body.campaign_id, proxy, adv }
}

async function servedOf(adv: Advertiser, campaignId: string): Promise<number> {
  await offersWritten(h)
  const res = await adv.get(`/v1/campaigns/${campaignId}`)
  assert.equal(res.status, 200, res.text)
  return res.body.impressions_served
}

async function billableToday(adv: Advertiser): Promise<number> {
  await offersWritten(h)
  const day = new Date()
  day.setUTCHours(0, 0, 0, 0)
  const end = new Date(day.getTime() + 86_400_000)
  const res = await adv.get(`/v1/stats?start=${day.toISOString()}&end=${end.toISOString()}&granularity=day`)
  assert.equal(res.status, 200, res.text)
  return res.body.totals.billable_impressions
}

function assertAllQuick(runs: Invocation[]) {
  for (const r of runs) {
    assert.equal(r.code, 0, `exit code ${r.code}`)
    assert.ok(r.ms < BOUND_MS, `an invocation took ${Math.round(r.ms)} ms`)
    assert.equal(r.stdout.split('\n').length, 2, `one line: ${JSON.stringify(r.stdout)}`)
  }
}

test('invoked every 300 ms for 12 s: the ad is shown, and exactly one billable impression is reported', async () => {
  const country = privateCountry()
  const { campaignId, proxy, adv } = await terminalCampaign(country, 'Ship faster with Acme CI')
  const billableBefore = await billableToday(adv)
  assert.equal(await servedOf(adv, campaignId), 0)
  const dir = stateDirFor()
  const env = { THINKING_LINE_URL: proxy.url, THINKING_LINE_STATE_DIR: dir, THINKING_LINE_COUNTRY: country, THINKING_LINE_PREFIX: '{model.display_name}' }
  const runs = await invokeEvery(env, 300, 12_000)
  assertAllQuick(runs)
  const withAd = runs.filter((r) => r.stdout.includes('Ad · Acme · Ship faster with Acme CI'))
  assert.ok(withAd.length >= runs.length - 5, `the ad from the first invocations on: ${withAd.length} of ${runs.length}`)
  assert.ok(runs.every((r) => r.stdout.startsWith('Opus')), 'the prefix from stdin')
  assert.ok(withAd[0]!.stdout.includes('\u001b]8;;'), 'an OSC 8 link outside tmux')
  assert.ok(await waitFor(() => unsent(dir).length === 0 && acknowledgedViews(proxy.calls).size >= 1, 10_000), 'the view is sent')
  assert.equal(await servedOf(adv, campaignId), 1)
  assert.equal((await billableToday(adv)) - billableBefore, 1)
  // The ad that replaced it is still on screen: not reported yet.
  assert.equal(acknowledgedViews(proxy.calls).size, 1)
  const decisions = proxy.calls.filter((c) => c.path === '/serve/v1/decisions')
  assert.ok(decisions.length >= 2 && decisions.length <= 4, `${decisions.length} decisions`)
})

test('the service stalled mid-run: every invocation still answers at once, and the pending view is delivered once it is back', async () => {
  const country = privateCountry()
  const { campaignId, proxy, adv } = await terminalCampaign(country, 'Faster builds with Acme')
  const dir = stateDirFor()
  const env = { THINKING_LINE_URL: proxy.url, THINKING_LINE_STATE_DIR: dir, THINKING_LINE_COUNTRY: country }
  const before = acknowledgedViews(proxy.calls).size
  const runs = await invokeEvery(env, 300, 3_000)
  proxy.stall()
  try {
    runs.push(...(await invokeEvery(env, 300, 10_000)))
    assertAllQuick(runs)
    assert.ok(runs.filter((r) => r.stdout.includes('Faster builds with Acme')).length >= runs.length - 3)
    // The first ad's 10 s are over: its view waits in the state directory.
    assert.ok(unsent(dir).length >= 1, 'a view waits')
  } finally {
    proxy.resume()
  }
  // Invocations 3 s apart (each ends the exposure before it): the refresher's back-off runs out and the view goes.
  assert.ok(
    await waitFor(async () => {
      const r = await invoke(env)
      assert.equal(r.code, 0)
      return unsent(dir).length === 0 && acknowledgedViews(proxy.calls).size >= before + 1
    }, 45_000, 3_000),
    'the pending view is delivered',
  )
  assert.equal(await servedOf(adv, campaignId), 1)
  for (const [id, n] of acknowledgedViews(proxy.calls)) assert.equal(n, 1, `${id} acknowledged ${n} times`)
})

test('two terminals sharing one state directory never report one impression twice', async () => {
  const country = privateCountry()
  const { campaignId, proxy, adv } = await terminalCampaign(country, 'Two terminals, one line')
  const dir = stateDirFor()
  const env = { THINKING_LINE_URL: proxy.url, THINKING_LINE_STATE_DIR: dir, THINKING_LINE_COUNTRY: country }
  const from = proxy.calls.length
  const [a, b] = await Promise.all([invokeEvery(env, 300, 24_000), sleep(150).then(() => invokeEvery(env, 300, 24_000))])
  assertAllQuick([...a!, ...b!])
  // A last invocation 3 s later ends the exposure on screen; then every view is sent.
  await sleep(3_000)
  await invoke(env)
  assert.ok(await waitFor(() => unsent(dir).length === 0, 15_000), 'every view is sent')
  const calls = proxy.calls.slice(from)
  const views = calls.filter((c) => /\/view$/.test(c.path))
  const ids = views.map((c) => c.path)
  assert.deepEqual(ids, [...new Set(ids)], 'each impression reported once')
  assert.ok(views.length >= 2, `${views.length} views`)
  // Two 10 s exposures in 24 s, each billable at most once. The service judges one billable view per viewer
  // per ten seconds by arrival, so on a loaded machine a late first report can cost the second its billing
  // (decision 0435); more than two would be a double count.
  const served = await servedOf(adv, campaignId)
  assert.ok(served >= 1 && served <= 2, `${served} billable impressions for two exposures`)
})
