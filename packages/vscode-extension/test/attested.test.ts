/**
 * Attested views from the extension's side (operations.md sections 2 and 9): the controller and
 * serving.ts (what extension.ts builds, without `vscode`) on a fake clock, against a real service
 * with the development attester (ATTESTER=dev) behind a recording proxy, so what crossed the wire is
 * asserted and an answer can be lost. The attester is an assistant's `setAttester` (a JWT from the
 * service's `POST /dev/attest`) or the `thinkingLine.attestCommand` setting. Every token is made by
 * the client library and checked by the service, for real.
 *
 * The service runs on its manual clock: each step of the fake clock moves it as far, so the dwell a
 * view claims is time the service saw pass.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { memoryQueue } from '@thinking-line/ad-client/reports'
import { BILLABLE_SPACING_MS } from '@thinking-line/ad-client/rules'
import { memoryWalletStore, parseWallet, TOKENS_PER_RUN } from '@thinking-line/ad-client/wallet'
import { campaignBody, useService, type Advertiser } from '../../../test/helpers/api.ts'
import { advance, privateCountry } from '../../../test/helpers/serving.ts'
import { Controller } from '../src/controller.ts'
import { createServing } from '../src/serving.ts'
import { FakeClock } from './fake-clock.ts'
import { startRecordingProxy, type RecordedCall, type RecordingProxy } from './long/recording-proxy.ts'

const h = useService({ ATTESTER: 'dev' }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })
const country = privateCountry()
let proxy: RecordingProxy
let adv: Advertiser
let campaignId: string
const work = mkdtempSync(join(tmpdir(), 'thinking-line-attested-'))

before(async () => {
  // The issuer's key is made in the background at start-up; the directory answers once it is held, and
  // decisions carry the challenge (without which no wallet fills) from then on.
  assert.equal((await fetch(`${h.baseUrl}/.well-known/private-token-issuer-directory`)).status, 200)
  proxy = await startRecordingProxy(h.baseUrl)
  adv = await h.advertiser()
  const res = await adv.post('/v1/campaigns', campaignBody({ brand: 'Acme', ad_line: 'Attested by Acme', target_surface: 'extension', target_countries: [country], impressions: 1000 }))
  assert.equal(res.status, 201, res.text)
  campaignId = res.body.campaign_id
})
after(async () => {
  await proxy?.close()
  rmSync(work, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Waits (real time: the service answers over real HTTP) until `check` holds. */
async function eventually(check: () => boolean, what: string, ms = 15_000) {
  const until = performance.now() + ms
  while (!check()) {
    if (performance.now() > until) assert.fail(`timed out waiting: ${what}`)
    await sleep(10)
  }
}

/** A JWT for `subject` from the service's development attester. */
async function devJwt(subject: string): Promise<string> {
  const res = await h.anonymous.post('/dev/attest', { subject })
  assert.equal(res.status, 200, res.text)
  return res.body.jwt
}

const since = (from: number) => proxy.calls.slice(from)
const views = (from: number) => since(from).filter((c) => c.method === 'POST' && /^\/serve\/v1\/impressions\/[^/]+\/view$/.test(c.path))
/** Token requests since `from`; with `jwts`, only those made with one of them (another test's editor may still be filling its wallet). */
const tokenRequests = (from: number, jwts?: readonly string[]) =>
  since(from).filter((c) => c.method === 'POST' && c.path === '/serve/v1/token-requests' && (!jwts || jwts.some((j) => c.headers.authorization === `Bearer ${j}`)))
const decisions = (from: number) => since(from).filter((c) => c.method === 'POST' && c.path === '/serve/v1/decisions')
const dwell = (c: RecordedCall) => (c.body as { dwell_ms: number }).dwell_ms
/** The Privacy Pass token a view report spent (RFC 9577's Authorization), or null. */
function spentToken(c: RecordedCall): string | null {
  const header = c.headers.authorization
  if (header === undefined) return null
  const m = /^PrivateToken token="([A-Za-z0-9_-]+={0,2})"$/.exec(header)
  assert.ok(m, `a view's Authorization is a PrivateToken: ${header}`)
  return m[1]!
}

async function totals() {
  await h.svc.service.serving.writer.flush()
  const res = await adv.get(`/v1/stats?campaign_id=${campaignId}&start=2026-11-02T00:00:00Z&end=2026-11-09T00:00:00Z`)
  assert.equal(res.status, 200, res.text)
  const t = res.body.totals
  return { billable: t.billable_impressions as number, attested: t.attested_billable_impressions as number, invalidToken: t.non_billable.invalid_token as number }
}
async function totalsSince(before: Awaited<ReturnType<typeof totals>>) {
  const t = await totals()
  return { billable: t.billable - before.billable, attested: t.attested - before.attested, invalidToken: t.invalidToken - before.invalidToken }
}

/** One editor window's worth: the controller and serving.ts over a fresh queue and wallet, one install id. */
function editor(o: { attestCommand?: string } = {}) {
  const clock = new FakeClock()
  const wallet = memoryWalletStore()
  const viewer = `install-${randomUUID()}`
  const serving = createServing({
    settings: () => ({ serviceUrl: proxy.url, country, attestCommand: o.attestCommand ?? '' }),
    viewerId: () => viewer,
    topics: () => [],
    now: clock.now,
    // Only the spacing of billable views sleeps; the tests space their views themselves.
    sleep: async (ms) => void (clock.t += ms),
    queue: memoryQueue(),
    wallet,
  })
  const c = new Controller(clock, { show: () => {}, hide: () => {} }, serving, { show: 'whileThinking', focused: true })
  c.start()
  return {
    c,
    serving,
    tokens: () => parseWallet(wallet.read()).tokens,
    backoff: () => parseWallet(wallet.read()).backoff,
    /** Moves the editor's clock and the service's by `ms` (whole seconds). */
    async step(ms: number) {
      await advance(h, ms / 1_000)
      await clock.advance(ms)
    },
    /** The window closes: no timer left, and the wallet filling under way done (nothing of it leaks into the next test). */
    async close() {
      c.dispose()
      await settleAll(serving)
    },
    /** Thinking until an ad is on screen (one decision over real HTTP); the function ends the thinking. */
    async think() {
      const end = c.thinking()
      await eventually(() => c.snapshot().shown !== null, 'an ad on screen')
      return end
    },
  }
}

/** Until serving.ts has nothing under way: a report sent at dispose, and the wallet fillings they set off. */
async function settleAll(serving: ReturnType<typeof createServing>) {
  for (let i = 0; i < 3; i++) {
    await sleep(50)
    await serving.walletIdle()
  }
}

/** An assistant's attester: a fresh JWT per call from the development attester; the JWTs handed out. */
function attesterFor(subject: string) {
  const handed: string[] = []
  const fn = async () => {
    const jwt = await devJwt(subject)
    handed.push(jwt)
    return jwt
  }
  return { fn, handed }
}

test("an assistant's attester: a batch of tokens fetched with its JWT at the decision, before any view; the billable view spends one; the service bills it attested", async () => {
  const before = await totals()
  const e = editor()
  const attester = attesterFor('developer-1')
  e.serving.setAttester(attester.fn)
  const from = proxy.calls.length
  const end = await e.think()
  await e.serving.walletIdle()

  assert.equal(attester.handed.length, 1, 'one JWT for the batch')
  const fetched = tokenRequests(from, attester.handed)
  assert.equal(fetched.length, TOKENS_PER_RUN, `a batch, not one token per view: ${JSON.stringify(fetched.map((c) => [c.status, c.body]))} ${JSON.stringify(e.backoff())}`)
  for (const r of fetched) {
    assert.equal(r.status, 200)
    assert.equal(r.headers.authorization, `Bearer ${attester.handed[0]}`)
    assert.equal(r.headers['content-type'], 'application/private-token-request')
  }
  const batch = e.tokens()
  assert.equal(batch.length, TOKENS_PER_RUN)
  assert.equal(new Set(batch).size, TOKENS_PER_RUN)
  assert.equal(views(from).length, 0, 'the tokens came ahead of the view')

  await e.step(10_000)
  await eventually(() => views(from).length === 1, 'the view reported at 10 s')
  const [view] = views(from)
  assert.equal(view!.status, 204)
  assert.equal(dwell(view!), 10_000)
  const token = spentToken(view!)
  assert.ok(token !== null && batch.includes(token), 'the view spent a token of the batch')
  await e.serving.walletIdle()
  assert.ok(!e.tokens().includes(token), 'the token left the wallet')
  // No JWT and no token on the decisions: the service sees the account only where tokens are issued.
  for (const d of decisions(from)) assert.equal(d.headers.authorization, undefined)
  assert.deepEqual(await totalsSince(before), { billable: 1, attested: 1, invalidToken: 0 })
  end()
  await e.close()
})

test('a view whose answer is lost is sent again with the same token: billed once, attested, no invalid token', async () => {
  const before = await totals()
  const e = editor()
  e.serving.setAttester(attesterFor('developer-2').fn)
  const end = await e.think()
  await e.serving.walletIdle()
  const from = proxy.calls.length
  proxy.loseNextAnswer((method, path) => method === 'POST' && path.endsWith('/view'))

  await e.step(10_000)
  await eventually(() => views(from).length === 1, 'the first try')
  assert.equal(views(from)[0]!.lost, true)
  assert.equal(views(from)[0]!.status, 204, 'the service took it; the editor never heard')
  const token = spentToken(views(from)[0]!)
  assert.ok(token !== null)
  assert.equal(e.c.snapshot().queued, 1, 'still owed')

  // The delivery backs off 1 s, then tries again.
  await e.step(1_000)
  await eventually(() => views(from).length === 2, 'the retry')
  const [first, retry] = views(from)
  assert.equal(retry!.path, first!.path)
  assert.equal(retry!.status, 204)
  assert.equal(spentToken(retry!), token, 'the retry carries the same token')
  await eventually(() => e.c.snapshot().queued === 0, 'the retry acknowledged: nothing owed')
  assert.ok(!e.tokens().includes(token))
  assert.deepEqual(await totalsSince(before), { billable: 1, attested: 1, invalidToken: 0 })
  end()
  await e.close()
})

test('a short exposure (4 s, then the assistant stops) is reported without a token and spends none', async () => {
  const before = await totals()
  const e = editor()
  e.serving.setAttester(attesterFor('developer-3').fn)
  const end = await e.think()
  await e.serving.walletIdle()
  const held = e.tokens()
  assert.equal(held.length, TOKENS_PER_RUN)
  const from = proxy.calls.length

  await e.step(4_000)
  end()
  // Hidden for more than 2 s: the exposure ends with the dwell it had.
  await e.step(3_000)
  await eventually(() => views(from).length === 1, 'the short view reported')
  const [view] = views(from)
  assert.equal(dwell(view!), 4_000)
  assert.equal(view!.status, 204)
  assert.equal(spentToken(view!), null, 'no token on a view that cannot bill')
  await e.serving.walletIdle()
  for (const t of held) assert.ok(e.tokens().includes(t), 'every token is still in the wallet')
  assert.deepEqual(await totalsSince(before), { billable: 0, attested: 0, invalidToken: 0 })
  await e.close()
})

test('an attester handed over while an offer is already in hand: the wallet fills at once, and that offer\'s view is attested', async () => {
  const before = await totals()
  const e = editor()
  // Working without an attester: one plain billable view, and the next offer prefetched at its end.
  const end = await e.think()
  const from = proxy.calls.length
  await e.step(10_000)
  await eventually(() => views(from).length === 1 && decisions(from).length === 1 && e.c.snapshot().shown !== null, 'the view, and the next offer on screen')
  assert.equal(spentToken(views(from)[0]!), null)
  const inHand = e.c.snapshot().shown
  end()
  assert.equal(e.tokens().length, 0)

  // The assistant's user signs in: it hands over the attester between two bursts of work.
  const attester = attesterFor('developer-4')
  e.serving.setAttester(attester.fn)
  await eventually(() => tokenRequests(from, attester.handed).length > 0, 'token requests start without waiting for a decision')
  await e.serving.walletIdle()
  assert.equal(e.tokens().length, TOKENS_PER_RUN)
  await e.step(Math.ceil(BILLABLE_SPACING_MS / 1_000) * 1_000)

  const second = proxy.calls.length
  const again = e.c.thinking()
  await e.step(10_000)
  await eventually(() => views(second).length === 1, 'the prefetched offer\'s view')
  assert.equal(views(second)[0]!.path, `/serve/v1/impressions/${inHand}/view`, 'the offer shown was the one in hand')
  assert.notEqual(spentToken(views(second)[0]!), null, 'the view carries a token')
  assert.deepEqual(await totalsSince(before), { billable: 2, attested: 1, invalidToken: 0 })
  again()
  await e.close()
})

test('thinkingLine.attestCommand: the JWT the command prints is used the same way', async () => {
  const before = await totals()
  const file = join(work, 'jwt.txt')
  const jwt = await devJwt('developer-5')
  writeFileSync(file, `${jwt}\n`)
  const e = editor({ attestCommand: `cat '${file}'` })
  const from = proxy.calls.length
  const end = await e.think()
  await e.serving.walletIdle()
  assert.equal(tokenRequests(from, [jwt]).length, TOKENS_PER_RUN)
  await e.step(10_000)
  await eventually(() => views(from).length === 1, 'the view')
  assert.notEqual(spentToken(views(from)[0]!), null)
  assert.deepEqual(await totalsSince(before), { billable: 1, attested: 1, invalidToken: 0 })
  end()
  await e.close()
})

test('an attester whose JWT is refused: views go without a token (billed unattested) and it backs off; a new attester is tried at once', async () => {
  const before = await totals()
  const e = editor()
  // A JWT with a broken signature, as an attester that signs with a key the service does not trust.
  const refused: string[] = []
  e.serving.setAttester(async () => {
    const jwt = `${(await devJwt('developer-6')).slice(0, -4)}AAAA`
    refused.push(jwt)
    return jwt
  })
  const from = proxy.calls.length
  const end = await e.think()
  await e.serving.walletIdle()
  assert.deepEqual(tokenRequests(from, refused).map((c) => c.status), [401], 'one refusal ends the batch')
  assert.equal(e.backoff()?.reason, 'unauthorized')
  await e.step(10_000)
  await eventually(() => views(from).length === 1, 'the view')
  assert.equal(spentToken(views(from)[0]!), null)

  const next = proxy.calls.length
  const good = attesterFor('developer-6')
  e.serving.setAttester(good.fn)
  await eventually(() => tokenRequests(next, good.handed).length > 0, 'the new attester is tried without waiting out the back-off')
  await e.serving.walletIdle()
  assert.equal(e.tokens().length, TOKENS_PER_RUN)
  assert.equal(e.backoff(), null)
  assert.deepEqual(await totalsSince(before), { billable: 1, attested: 0, invalidToken: 0 })
  end()
  await e.close()
})
