/**
 * Thinking Line in a real VS Code (issue 50): code-server with the built .vsix and a React project
 * open, in Chromium, against a service on the embedded store (system clock: the extension measures
 * dwell on its own clock and the service checks it against elapsed time) with an approved
 * advertiser's `extension` campaign targeting the topic `react`. The extension talks to the service
 * through a recording proxy (what crossed the wire is asserted; stopping the proxy is the service
 * going down); the browser answers every request off the loopback itself.
 *
 * A test assistant extension (./assistant) works for 14 s at a time through Thinking Line's exported
 * API, as a real assistant would, reports the API (activationMs), and hands over its user's attester
 * (`setAttester`, JWTs from the service's development attester: ATTESTER=dev), after which views are
 * attested. The tests run in order on one workbench; each counts its own deltas.
 */
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { campaignBody, useService, type Advertiser } from '../../../../test/helpers/api.ts'
import { browserSkip, launchChromium } from '../../../../test/helpers/browser.ts'
import {
  builtVsix,
  freePort,
  hoverText,
  leaveWorkbench,
  notifications,
  offlineContext,
  openFile,
  openWorkbench,
  packTestExtension,
  runCommand,
  statusBarItem,
  statusBarShot,
  startCodeServer,
  workbenchFocus,
  type CodeServer,
  type Offline,
} from '../../../../test/helpers/code-server.ts'
import { offersWritten, privateCountry } from '../../../../test/helpers/serving.ts'
import { TOKENS_PER_RUN } from '@thinking-line/ad-client/wallet'
import { startRecordingProxy, type RecordedCall, type RecordingProxy } from './recording-proxy.ts'

const SIMULATE = 'Thinking Line: Simulate an assistant thinking'
const THINK = 'Test assistant: Think for a while'
const REPORT = "Test assistant: Report Thinking Line's API"
const ATTEST = 'Test assistant: Hand over the attester'
const THINK_MS = 14_000
const BRAND = 'Acme'
const AD_LINE = 'Ship React apps faster with Acme'
const SHOWN = `Ad · ${BRAND} · ${AD_LINE}`
const DESTINATION = 'https://acme.example/react'
/** The project's name and folder: neither may leave the editor. */
const PROJECT = 'secret-client-project'
const IMAGES = new URL('../../images/', import.meta.url).pathname

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
async function waitFor(check: () => boolean | Promise<boolean>, ms: number, everyMs = 250): Promise<boolean> {
  const until = performance.now() + ms
  while (performance.now() < until) {
    if (await check()) return true
    await sleep(everyMs)
  }
  return check()
}

// The proxy is the service's public address (PUBLIC_URL): the decisions' view and click URLs lead through it too.
const servicePort = await freePort()
const proxy: RecordingProxy = await startRecordingProxy(`http://127.0.0.1:${servicePort}`)
const h = useService({ CLOCK: 'system', PORT: String(servicePort), PUBLIC_URL: proxy.url, ATTESTER: 'dev' }, { create_rate_limit_per_min: 1000, outstanding_balance_cap_usd: null })
after(() => proxy.close())

describe('Thinking Line in code-server', { skip: browserSkip }, () => {
  const country = privateCountry()
  const work = mkdtempSync(join(tmpdir(), 'thinking-line-editor-'))
  const folder = join(work, PROJECT)
  const assistantOut = join(work, 'assistant.jsonl')
  let adv: Advertiser
  let campaignId: string
  let server: CodeServer
  let browser: Browser
  let context: BrowserContext
  let offline: Offline
  let page: Page

  before(async () => {
    adv = await h.advertiser()
    const res = await adv.post(
      '/v1/campaigns',
      campaignBody({ brand: BRAND, ad_line: AD_LINE, destination_url: DESTINATION, target_surface: 'extension', target_topics: ['react'], target_countries: [country], impressions: 1000 }),
    )
    assert.equal(res.status, 201, res.text)
    campaignId = res.body.campaign_id

    mkdirSync(join(folder, 'src'), { recursive: true })
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: PROJECT, private: true, dependencies: { react: '^19.0.0' } }, null, 2))
    writeFileSync(
      join(folder, 'src', 'App.jsx'),
      "import { useState } from 'react'\n\nexport default function App() {\n  const [count, setCount] = useState(0)\n  return <button onClick={() => setCount(count + 1)}>Clicked {count} times</button>\n}\n",
    )
    writeFileSync(assistantOut, '')
    const assistant = packTestExtension(new URL('./assistant', import.meta.url).pathname, join(work, 'assistant.vsix'))

    server = await startCodeServer({
      folder,
      extensions: [builtVsix(), assistant],
      settings: { 'thinkingLine.serviceUrl': proxy.url, 'thinkingLine.country': country },
      env: { THINKING_LINE_TEST_OUT: assistantOut, THINKING_LINE_TEST_THINK_MS: String(THINK_MS), THINKING_LINE_TEST_ATTEST_URL: `${proxy.url}/dev/attest` },
    })
    browser = await launchChromium()
    ;({ context, offline } = await offlineContext(browser))
    context.setDefaultTimeout(15_000)
    const started = performance.now()
    page = await openWorkbench(context, server)
    console.log(`# workbench loaded in ${Math.round(performance.now() - started)} ms`)
    // A developer at work: a file of the project open in the editor.
    await openFile(page, 'App.jsx')
  })

  after(async () => {
    await browser?.close()
    await server?.close()
    rmSync(work, { recursive: true, force: true })
  })

  const item = () => statusBarItem(page, SHOWN)
  const decisions = (from = 0) => proxy.calls.slice(from).filter((c) => c.method === 'POST' && c.path === '/serve/v1/decisions')
  const views = (from = 0) => proxy.calls.slice(from).filter((c) => c.method === 'POST' && /^\/serve\/v1\/impressions\/[^/]+\/view$/.test(c.path))
  const dwell = (c: RecordedCall) => (c.body as { dwell_ms: number }).dwell_ms
  const tokenRequests = (from = 0) => proxy.calls.slice(from).filter((c) => c.method === 'POST' && c.path === '/serve/v1/token-requests')
  const jwtsFetched = (from = 0) => proxy.calls.slice(from).filter((c) => c.method === 'POST' && c.path === '/dev/attest')
  const assistantEvents = (): { event: string }[] =>
    readFileSync(assistantOut, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))

  async function totals(): Promise<{ billable: number; attested: number; clicks: number }> {
    await offersWritten(h)
    const day = new Date()
    day.setUTCHours(0, 0, 0, 0)
    const end = new Date(day.getTime() + 86_400_000)
    const res = await adv.get(`/v1/stats?start=${day.toISOString()}&end=${end.toISOString()}&granularity=day&campaign_id=${campaignId}`)
    assert.equal(res.status, 200, res.text)
    return { billable: res.body.totals.billable_impressions, attested: res.body.totals.attested_billable_impressions, clicks: res.body.totals.clicks }
  }

  /** One viewer earns at most one billable impression per ten seconds: a test starts ten seconds after the last view. */
  async function afterLastView() {
    const last = views().at(-1)
    if (last) await sleep(Math.max(0, last.at + 10_500 - performance.now()))
  }

  test('Simulate: the status bar shows the disclosed ad, its tooltip says it is an ad, and a click opens the click URL', async () => {
    const from = proxy.calls.length
    const before = await totals()
    await runCommand(page, SIMULATE)
    await item().waitFor({ state: 'visible', timeout: 20_000 })
    assert.equal((await item().innerText()).trim(), SHOWN)

    const tooltip = await hoverText(page, item())
    assert.match(tooltip, /\bad\b|advert/i, `the tooltip says it is an ad: ${JSON.stringify(tooltip)}`)
    assert.match(tooltip, /react/i, `the tooltip says why (the topics sent): ${JSON.stringify(tooltip)}`)
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(IMAGES, { recursive: true })
      await statusBarShot(page, item(), join(IMAGES, 'status-bar-tooltip.png'), { above: 160 })
      await page.mouse.move(300, 300)
      await page.locator('.monaco-hover, .workbench-hover').filter({ visible: true }).waitFor({ state: 'hidden' }).catch(() => {})
      await statusBarShot(page, item(), join(IMAGES, 'status-bar.png'))
      await page.screenshot({ path: join(IMAGES, 'editor.png'), animations: 'disabled' })
    }

    const popup = context.waitForEvent('page')
    await item().click()
    await (await popup).waitForLoadState('load')
    assert.ok(await waitFor(() => offline.answered.includes(DESTINATION), 10_000), `the click led to the destination: ${JSON.stringify(offline.answered)}`)
    const clicks = proxy.calls.slice(from).filter((c) => c.method === 'GET' && /^\/serve\/v1\/impressions\/[^/]+\/click$/.test(c.path))
    assert.deepEqual(clicks.map((c) => c.status), [302], 'the click URL, answered 302 by the service')
    const [decision] = decisions(from)
    assert.ok(decision, 'a decision was asked for')
    assert.ok(await waitFor(async () => (await totals()).clicks === before.clicks + 1, 10_000), 'the service recorded the click')
    for (const p of context.pages().filter((p) => p !== page)) await p.close()
  })

  test('the decision request carries only surface, viewer_id, topics and country: nothing about the project or the machine', () => {
    const sent = decisions()
    assert.ok(sent.length >= 1)
    for (const call of sent) {
      const body = call.body as Record<string, unknown>
      assert.deepEqual(Object.keys(body).sort(), ['country', 'surface', 'topics', 'viewer_id'], JSON.stringify(body))
      assert.equal(body.surface, 'extension')
      assert.equal(body.country, country)
      assert.ok(Array.isArray(body.topics) && body.topics.includes('react'), `topics: ${JSON.stringify(body.topics)}`)
      assert.match(String(body.viewer_id), /^[\w-]{8,128}$/)
      // Nothing names the project, its folder, this machine or its user: not in the body, not in a header.
      const wire = JSON.stringify({ body, headers: call.headers, path: call.path })
      for (const secret of [PROJECT, work, folder, 'App.jsx', process.env.USER ?? 'root', (process.env.HOSTNAME ?? '').trim()].filter((s) => s.length >= 3)) {
        assert.ok(!wire.includes(secret), `the request carries ${JSON.stringify(secret)}: ${wire}`)
      }
    }
    // One install id, kept between decisions.
    assert.equal(new Set(sent.map((c) => (c.body as { viewer_id: string }).viewer_id)).size, 1)
  })

  test('activation costs at most 20 ms of extension-host time (the exported activationMs)', async () => {
    await runCommand(page, REPORT)
    let report: { exports: string[]; activationMs?: number; loadMs?: number | null } | undefined
    assert.ok(
      await waitFor(() => {
        report = readFileSync(assistantOut, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => e.event === 'report')
        return report !== undefined
      }, 10_000),
      'the test assistant reported',
    )
    assert.ok(report!.exports.includes('thinking') && report!.exports.includes('whileThinking') && report!.exports.includes('setAttester'), `the API: ${report!.exports.join(', ')}`)
    assert.equal(typeof report!.activationMs, 'number', 'activate() returns activationMs')
    console.log(`# activationMs ${report!.activationMs} (loading the bundle before it: ${report!.loadMs ?? 'not exposed'} ms)`)
    assert.ok(report!.activationMs! <= 20, `activation took ${report!.activationMs} ms`)
  })

  test('11 s with the window focused: exactly one billable impression, reported once with its measured dwell', async () => {
    // The Simulate run of the first test ends first.
    assert.ok(await waitFor(async () => (await item().count()) === 0, 60_000), 'the simulated thinking ends and the item hides')
    await afterLastView()
    const from = proxy.calls.length
    const before = await totals()
    await runCommand(page, THINK)
    await item().waitFor({ state: 'visible', timeout: 10_000 })
    const shown = performance.now()
    assert.deepEqual(await workbenchFocus(page), { focused: true, visible: true })
    await sleep(11_000)
    assert.ok(await waitFor(() => views(from).some((c) => c.status === 204 && dwell(c) >= 10_000), 5_000), `the view is reported at 10 s: ${JSON.stringify(views(from).map((c) => c.body))}`)
    const report = views(from).find((c) => dwell(c) >= 10_000)!
    assert.ok(dwell(report) <= performance.now() - shown + 1_000, `dwell ${dwell(report)} ms is no more than the time shown`)
    // The thinking ends (14 s): whatever followed is reported too; nothing more is billable.
    assert.ok(await waitFor(async () => (await item().count()) === 0, 10_000), 'the item hides when the assistant is done')
    await sleep(3_000)
    const ids = views(from).map((c) => c.path)
    assert.deepEqual(ids, [...new Set(ids)], 'each impression reported once')
    assert.equal((await totals()).billable - before.billable, 1)
    assert.equal((await totals()).attested - before.attested, 0, 'no attester yet: not attested')
    for (const c of views(from)) assert.equal(c.headers.authorization, undefined, 'no token without an attester')
  })

  test('an assistant hands over its attester: tokens come in a batch at once; after 11 s focused, exactly one billable impression, attested', async () => {
    assert.ok(await waitFor(async () => (await item().count()) === 0, 30_000), 'the last thinking ended')
    await afterLastView()
    const from = proxy.calls.length
    const before = await totals()
    // The previous exposure ended with the next offer prefetched: it is in hand, and no decision
    // comes before the view. The wallet fills from the challenge already seen, without waiting for one.
    await runCommand(page, ATTEST)
    const fetchedFrom = performance.now()
    assert.ok(await waitFor(() => assistantEvents().some((e) => e.event === 'attester'), 10_000), 'the assistant handed over its attester')
    assert.ok(
      await waitFor(() => tokenRequests(from).filter((c) => c.status === 200).length >= TOKENS_PER_RUN, 20_000),
      `a batch of tokens is fetched before the assistant works: ${JSON.stringify(tokenRequests(from).map((c) => c.status))}`,
    )
    const batch = tokenRequests(from)
    assert.equal(batch.length, TOKENS_PER_RUN, 'one batch')
    console.log(`# a batch of ${batch.length} tokens in ${Math.round(batch.at(-1)!.at - fetchedFrom)} ms after the attester was handed over (decisions meanwhile: ${decisions(from).length})`)
    const fetched = jwtsFetched(from)
    assert.equal(fetched.length, 1, 'one JWT for the batch')
    assert.equal(fetched[0]!.status, 200)
    for (const r of batch) assert.match(String(r.headers.authorization), /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/)
    assert.equal(new Set(batch.map((r) => r.headers.authorization)).size, 1, 'the batch went with the one JWT')

    const thinking = proxy.calls.length
    await runCommand(page, THINK)
    await item().waitFor({ state: 'visible', timeout: 10_000 })
    assert.deepEqual(await workbenchFocus(page), { focused: true, visible: true })
    await sleep(11_000)
    assert.ok(await waitFor(() => views(thinking).some((c) => c.status === 204 && dwell(c) >= 10_000), 5_000), `the view is reported at 10 s: ${JSON.stringify(views(thinking).map((c) => c.body))}`)
    const report = views(thinking).find((c) => dwell(c) >= 10_000)!
    assert.match(String(report.headers.authorization), /^PrivateToken token="[\w-]+={0,2}"$/, 'the view spends a Privacy Pass token')
    for (const d of decisions(from)) assert.equal(d.headers.authorization, undefined, 'no JWT or token on a decision')
    assert.ok(await waitFor(async () => (await item().count()) === 0, 10_000), 'the item hides when the assistant is done')
    await sleep(3_000)
    // What followed the billable view (about 4 s shown) is reported without a token.
    for (const c of views(thinking).filter((c) => c !== report)) assert.equal(c.headers.authorization, undefined, `a ${dwell(c)} ms view spent a token`)
    const after = await totals()
    assert.deepEqual({ billable: after.billable - before.billable, attested: after.attested - before.attested }, { billable: 1, attested: 1 })
  })

  test('11 s with the focus in another tab: no billable impression', async () => {
    await afterLastView()
    const from = proxy.calls.length
    const before = await totals()
    await runCommand(page, THINK)
    await item().waitFor({ state: 'visible', timeout: 10_000 })
    const back = await leaveWorkbench(page)
    try {
      assert.ok(await waitFor(async () => !(await workbenchFocus(page)).focused, 5_000), 'the workbench lost the focus')
      await sleep(11_000)
      assert.deepEqual(
        views(from).filter((c) => dwell(c) >= 9_500),
        [],
        'no view with ten seconds of dwell while unfocused',
      )
    } finally {
      await back()
    }
    assert.ok(await waitFor(async () => (await item().count()) === 0, 10_000), 'the item hides when the assistant is done')
    await sleep(3_000)
    for (const c of views(from)) assert.ok(dwell(c) < 9_500, `a view reported ${dwell(c)} ms of dwell`)
    // The attester is set (the test before): a view that cannot bill spends no token.
    for (const c of views(from)) assert.equal(c.headers.authorization, undefined, `a ${dwell(c)} ms view spent a token`)
    assert.equal((await totals()).billable - before.billable, 0)
  })

  test('the service stopped: no notification, and the item hides', async () => {
    await afterLastView()
    await runCommand(page, THINK)
    await item().waitFor({ state: 'visible', timeout: 10_000 })
    const shown = performance.now()
    await proxy.stop()
    try {
      // The assistant works on with the service down: at 10 s the exposure ends, no next decision
      // can come, and the item hides while the assistant is still working. No toast, ever.
      let toasts = 0
      let hiddenWhileThinking = false
      while (performance.now() - shown < THINK_MS + 3_000) {
        toasts = Math.max(toasts, await notifications(page).count())
        const elapsed = performance.now() - shown
        if (elapsed > 10_000 && elapsed < THINK_MS - 1_000 && (await item().count()) === 0) hiddenWhileThinking = true
        await sleep(250)
      }
      assert.equal(toasts, 0, `notifications: ${JSON.stringify(await notifications(page).allInnerTexts())}`)
      assert.ok(hiddenWhileThinking, 'the item hid once no next decision could come, while the assistant was still working')
      assert.equal(await item().count(), 0, 'the item stays hidden')
      assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no dialog')
      // The editor still takes commands at once.
      await runCommand(page, REPORT, 10_000)
    } finally {
      await proxy.start()
    }
  })
})
