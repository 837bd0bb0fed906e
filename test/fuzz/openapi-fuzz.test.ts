/**
 * Issue 19: thousands of bad requests against every operation of the
 * advertiser API (from the served OpenAPI document), the operator API and the
 * serving endpoints (from the route catalogue). Asserts: no 5xx (except a
 * 503 an operator caused by disabling a component), `detail` on every error,
 * every /v1 and /admin/v1 answer as its document says, and a healthy service afterwards.
 * FUZZ_SEED and FUZZ_REQUESTS reproduce or lengthen a run.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { campaignBody, useService } from '../helpers/api.ts'
import { DEEP_BODIES, operationsFromCatalogue, operationsFromOpenApi, RequestFuzzer, seeded, type FuzzRequest, type Operation } from '../helpers/fuzz.ts'
import { ADMIN_TOKEN } from '../helpers/service.ts'
import { OPENAPI_DOCUMENTS, type OpenApiValidator } from '../helpers/openapi.ts'
import { STORE_UNAVAILABLE } from '../../src/domain/errors.ts'
import { COMPONENTS } from '../../src/http/schemas/status.ts'

const SEED = Number(process.env.FUZZ_SEED ?? 19_5_2026)
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 5_200)
const CONCURRENCY = 8
/** Operator calls may lower limits or disable components: both are put back this often. */
const RESET_EVERY = 400
const FUZZ_LIMITS = { read_rate_limit_per_min: 1_000_000, create_rate_limit_per_min: 1_000_000 }

const h = useService()

interface Failure {
  request: FuzzRequest
  status: number
  text: string
  problem: string
}

function problemOf(req: FuzzRequest, status: number, contentType: string, text: string, validate: () => string[]): string | null {
  if (status >= 500) {
    // A 503 names an operator's choice (a disabled component), never a failure of the store.
    const operatorChoice = status === 503 && !text.includes(STORE_UNAVAILABLE) && !text.includes('internal error')
    if (!operatorChoice) return `status ${status}`
  }
  if (status >= 400 && req.method !== 'HEAD' && !req.path.startsWith('/preview/')) {
    if (!contentType.includes('application/json')) return `error without a JSON body (${contentType})`
    let body: any
    try {
      body = JSON.parse(text)
    } catch {
      return 'error body is not JSON'
    }
    const d = body?.detail
    const wellFormed = typeof d === 'string' || (d && typeof d === 'object' && typeof d.field === 'string' && typeof d.reason === 'string')
    if (!wellFormed) return 'error without a well-formed detail'
  }
  const problems = validate()
  return problems.length > 0 ? problems.join('; ') : null
}

/** The served document an answer is checked against: /v1 and /admin/v1 each have theirs (not the documents themselves). */
function documentOf(path: string): { validator: OpenApiValidator; prefix: string } | null {
  if (path.startsWith('/v1/') && !path.startsWith(OPENAPI_DOCUMENTS.advertiser.url)) return { validator: h.validator, prefix: '/v1' }
  const operator = OPENAPI_DOCUMENTS.operator
  if (path.startsWith(`${operator.prefix}/`) && !path.startsWith(operator.url)) return { validator: h.operatorValidator, prefix: operator.prefix }
  return null
}

async function send(req: FuzzRequest): Promise<{ status: number; contentType: string; text: string }> {
  const res = await fetch(h.baseUrl + req.path, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' })
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() }
}

/** Puts back what operator calls may have changed, so later requests still reach the endpoints. */
async function resetOperatorState(): Promise<void> {
  await h.config({ ...FUZZ_LIMITS, min_cpm_usd: 0.5, max_total_usd: 5000, max_blocks: 100, outstanding_balance_cap_usd: 10_000 })
  for (const component of COMPONENTS) {
    assert.equal((await h.admin.put(`/admin/v1/components/${component}`, { state: 'operational' })).status, 200)
  }
  // Wrong keys and operator tokens lock the fuzzer's address (127.0.0.1); later chunks still reach the endpoints.
  assert.equal((await h.admin.post('/admin/v1/unlock', { address: '127.0.0.1' })).status, 200)
}

test(`schema-guided fuzz: ${REQUESTS} bad requests, no 5xx, detail on every error (seed ${SEED})`, { timeout: 240_000 }, async () => {
  console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} reproduces), ${REQUESTS} requests`)
  await h.config(FUZZ_LIMITS)
  const adv = await h.advertiser()
  const other = await h.advertiser()
  // Operator calls on account ids go to a victim account, so the fuzzing account keeps its key.
  const victim = await h.advertiser()

  const created = await adv.post('/v1/campaigns', campaignBody())
  assert.equal(created.status, 201, created.text)
  const campaignId = created.body.campaign_id
  const creativeId = (await adv.get(`/v1/campaigns/${campaignId}`)).body.creatives[0].creative_id
  const foreignId = (await other.post('/v1/campaigns', campaignBody())).body.campaign_id
  const exportId = (await adv.post('/v1/exports', { start: '2026-10-26T00:00:00Z', end: '2026-11-01T00:00:00Z' })).body.id
  const previewToken = (await adv.post(`/v1/campaigns/${campaignId}/preview`)).body.preview_token
  const decision = await h.anonymous.post('/serve/v1/decisions', { surface: 'extension', viewer_id: 'fuzz-viewer' })
  const impressionId = decision.status === 200 ? [decision.body.impression_id] : []

  const adminAuth = { authorization: `Bearer ${ADMIN_TOKEN}` }
  const ids: Record<string, string[]> = {
    campaign_id: [campaignId, foreignId, `cmp_${'0'.repeat(22)}`],
    campaign_ids: [campaignId, foreignId],
    creative_id: [creativeId],
    creative_ids: [creativeId],
    export_id: [exportId],
    preview_token: [previewToken],
    token: [previewToken],
    user_id: [victim.userId, 'usr_unknown'],
    invoice_id: ['inv_unknown'],
    impression_id: impressionId,
    job: ['rollups', 'invoicing', 'exports', 'expiry', 'traffic-review'],
  }
  const fuzzer = new RequestFuzzer(seeded(SEED), { advertiserAuth: adv.auth, adminAuth, ids })

  const doc = h.validator.doc
  const catalogue = h.svc.service.app.routeCatalogue
  const operations: Operation[] = [
    ...operationsFromOpenApi(doc, '/v1'),
    ...operationsFromCatalogue(catalogue, '/admin/v1/', 'admin'),
    ...operationsFromCatalogue(catalogue, '/serve/v1/', 'none'),
    ...operationsFromCatalogue(catalogue, '/preview/', 'none'),
  ]
  assert.ok(operations.length >= 35, `only ${operations.length} operations found`)
  const requests = Array.from({ length: REQUESTS }, (_, i) => fuzzer.request(operations[i % operations.length]!))

  const failures: Failure[] = []
  const statuses = new Map<number, number>()
  const started = performance.now()
  for (let from = 0; from < requests.length; from += RESET_EVERY) {
    const chunk = requests.slice(from, from + RESET_EVERY)
    let next = 0
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < chunk.length) {
          const req = chunk[next++]!
          const { status, contentType, text } = await send(req)
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
          // Answers of the advertiser and the operator API are checked against their own documents.
          const documented = req.sameOperation ? documentOf(req.path) : null
          const problem = problemOf(req, status, contentType, text, () => {
            if (!documented) return []
            const body = contentType.includes('application/json') && text !== '' ? JSON.parse(text) : undefined
            return documented.validator.check(req.method, req.path.slice(documented.prefix.length), status, body)
          })
          if (problem) failures.push({ request: req, status, text: text.slice(0, 300), problem: problem.slice(0, 300) })
        }
      }),
    )
    await resetOperatorState()
  }
  const seconds = (performance.now() - started) / 1000
  console.log(`fuzz: ${requests.length} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`)

  const distinct = new Map<string, Failure>()
  for (const f of failures) distinct.set(`${f.request.method} ${f.request.operation.template} ${f.status} ${f.problem}`, f)
  const report = [...distinct.values()]
    .slice(0, 25)
    .map((f) => `${f.request.method} ${f.request.path.slice(0, 160)} [${f.request.mutations.join(',')}] body=${String(f.request.body ?? '').slice(0, 160)} → ${f.status} ${f.problem}: ${f.text}`)
  assert.equal(failures.length, 0, `${failures.length} failures (${distinct.size} distinct), seed ${SEED}:\n${report.join('\n')}`)

  // Issue 35: every operation that reads a body (all but GET and HEAD), with its credentials and real ids,
  // answers a body nested past 32 levels with 400 too_deep, whether it declares a body or not.
  const deepFailures: string[] = []
  const withBodies = operations.filter((o) => o.method !== 'GET' && o.method !== 'HEAD')
  console.log(`deep bodies: ${withBodies.length} operations × ${DEEP_BODIES.length} bodies`)
  for (const op of withBodies) {
    const path = op.template.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(ids[k]?.[0] ?? 'x'))
    const auth = op.auth === 'advertiser' ? adv.auth : op.auth === 'admin' ? adminAuth : {}
    for (const body of DEEP_BODIES) {
      const headers = { ...auth, 'content-type': 'application/json', 'x-forwarded-for': '10.35.0.1' }
      const res = await fetch(h.baseUrl + path, { method: op.method, headers, body, redirect: 'manual' })
      const text = await res.text()
      const reason = res.headers.get('content-type')?.includes('application/json') ? JSON.parse(text)?.detail?.reason : null
      if (res.status !== 400 || reason !== 'too_deep') deepFailures.push(`${op.method} ${path} (${body.length} chars) → ${res.status} ${text.slice(0, 200)}`)
    }
  }
  assert.deepEqual(deepFailures, [], 'a deep body was not 400 too_deep')

  // Afterwards the service is healthy: probes, and a normal create and read.
  assert.equal((await h.anonymous.get('/healthz')).status, 200)
  assert.equal((await h.anonymous.get('/readyz')).status, 200)
  const fresh = await h.advertiser()
  const after = await fresh.post('/v1/campaigns', campaignBody())
  assert.equal(after.status, 201, after.text)
  assert.equal((await fresh.get(`/v1/campaigns/${after.body.campaign_id}`)).status, 200)
})
