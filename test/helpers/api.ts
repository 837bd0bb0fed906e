import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, before } from 'node:test'
import { ADMIN_TOKEN, fetchService, startService, type TestService } from './service.ts'
import { OPENAPI_DOCUMENTS, advertiserValidator, type OpenApiValidator, operatorValidator } from './openapi.ts'
import { perFile } from './file-scope.ts'

export interface Reply<T = any> {
  status: number
  headers: Headers
  body: T
  text: string
}

export interface CallOptions {
  body?: unknown
  /** Sent verbatim as the body (for malformed JSON). */
  raw?: string
  headers?: Record<string, string>
}

/** A distinct documentation-range address per client, so lockouts never leak across tests. */
export const freshIp = () => `198.51.${100 + (process.pid % 50)}.${(perFile.ip++ % 250) + 1}`

export class Client {
  readonly ip = freshIp()
  constructor(
    readonly t: TestHarness,
    readonly auth: Record<string, string> = {},
  ) {}

  async call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, ...this.auth, ...options.headers }
    let body: string | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json'
    const res = await fetchService(this.t.baseUrl + path, { method, headers, body, redirect: 'manual' })
    const text = await res.text()
    const isJson = (res.headers.get('content-type') ?? '').includes('application/json')
    const parsed = isJson && text !== '' ? JSON.parse(text) : text
    const reply = { status: res.status, headers: res.headers, body: parsed, text }
    if (path.startsWith('/v1/') && !path.startsWith('/v1/openapi.json')) {
      const problems = this.t.validator.check(method, path.slice(3), res.status, isJson ? parsed : undefined)
      assert.deepEqual(problems, [], `response does not match the OpenAPI document: ${text.slice(0, 500)}`)
    }
    const operator = OPENAPI_DOCUMENTS.operator
    if (path.startsWith(`${operator.prefix}/`) && !path.startsWith(operator.url)) {
      const problems = this.t.operatorValidator.check(method, path.slice(operator.prefix.length), res.status, isJson ? parsed : undefined)
      assert.deepEqual(problems, [], `response does not match the operator OpenAPI document: ${text.slice(0, 500)}`)
    }
    if (res.status >= 400 && isJson) assert.ok(parsed && 'detail' in parsed, `non-2xx without detail: ${text}`)
    return reply
  }

  get = <T = any>(path: string, o?: CallOptions) => this.call<T>('GET', path, o)
  post = <T = any>(path: string, body?: unknown, o?: CallOptions) => this.call<T>('POST', path, { ...o, body })
  patch = <T = any>(path: string, body?: unknown, o?: CallOptions) => this.call<T>('PATCH', path, { ...o, body })
  put = <T = any>(path: string, body?: unknown, o?: CallOptions) => this.call<T>('PUT', path, { ...o, body })
  delete = <T = any>(path: string, o?: CallOptions) => this.call<T>('DELETE', path, o)
}

export interface Advertiser extends Client {
  userId: string
  apiKey: string
}

export type BillingSetup = 'card' | 'failing_card' | 'net30' | 'none'

export interface TestHarness {
  baseUrl: string
  svc: TestService
  validator: OpenApiValidator
  /** The operator API's document (/admin/v1/openapi.json): every admin call through a Client is checked against it. */
  operatorValidator: OpenApiValidator
  admin: Client
  anonymous: Client
  /** A fresh advertiser; by default fully able to write. */
  advertiser(o?: { approved?: boolean; terms?: boolean; billing?: BillingSetup }): Promise<Advertiser>
  /** Sets operator config for the rest of the file (restored after it). */
  config(patch: Record<string, unknown>): Promise<void>
}

/**
 * Registers before/after hooks that run one service for the test file;
 * returns the harness. `config` is applied through the operator API at start.
 */
export function useService(env: Record<string, string> = {}, config?: Record<string, unknown>): TestHarness {
  const h = {} as TestHarness
  before(async () => {
    h.svc = await startService(env)
    h.baseUrl = h.svc.baseUrl
    h.validator = await advertiserValidator(h.baseUrl)
    h.operatorValidator = await operatorValidator(h.baseUrl, ADMIN_TOKEN)
    h.admin = new Client(h, { authorization: `Bearer ${ADMIN_TOKEN}` })
    h.anonymous = new Client(h)
    h.advertiser = async ({ approved = true, terms = true, billing = 'card' } = {}) => {
      const created = await h.admin.post('/admin/v1/accounts', { email: `adv-${randomBytes(4).toString('hex')}@example.dev` })
      assert.equal(created.status, 201, created.text)
      const { user_id, api_key } = created.body
      if (approved) assert.equal((await h.admin.post(`/admin/v1/accounts/${user_id}/write-approval`, { approved: true })).status, 200)
      if (terms) assert.equal((await h.admin.post(`/admin/v1/accounts/${user_id}/terms`, { accepted: true })).status, 200)
      const enrollment = {
        card: { mode: 'weekly_autopay', card_number: '4242424242424242' },
        failing_card: { mode: 'weekly_autopay', card_number: '4000000000000341' },
        net30: { mode: 'net30_invoice', credit_limit_cents: 500_000 },
        none: null,
      }[billing]
      if (enrollment) assert.equal((await h.admin.post(`/admin/v1/accounts/${user_id}/billing`, enrollment)).status, 200)
      const client = new Client(h, { 'x-service-user-id': user_id, 'x-service-api-key': api_key }) as Advertiser
      client.userId = user_id
      client.apiKey = api_key
      return client
    }
    h.config = async (patch) => {
      const res = await h.admin.patch('/admin/v1/config', patch)
      assert.equal(res.status, 200, res.text)
    }
    if (config) await h.config(config)
  })
  after(async () => {
    await h.svc?.close()
  })
  return h
}

/**
 * Creates a campaign of 1,000 impressions through the API (`overrides` on its body) and returns the ids
 * a ledger row of it names: what the store tests hand to a ledger batch.
 */
export async function campaignIds(h: TestHarness, adv: Advertiser, overrides: Record<string, unknown> = {}) {
  const res = await adv.post('/v1/campaigns', campaignBody({ impressions: 1000, ...overrides }))
  assert.equal(res.status, 201, res.text)
  const campaignId = String(res.body.campaign_id)
  const creative = await h.svc.service.store.db.selectFrom('creatives').select('creative_id').where('campaign_id', '=', campaignId).executeTakeFirstOrThrow()
  return { campaignId, creativeId: creative.creative_id, userId: adv.userId! }
}

let keyCounter = 0
/** A valid CampaignCreate body with a unique idempotency key. */
export function campaignBody(overrides: Record<string, unknown> = {}) {
  return {
    ad_line: 'Ship faster with Acme CI',
    destination_url: 'https://acme.dev/ci',
    cpm_usd: 2.5,
    impressions: 3000,
    idempotency_key: `key-${process.pid}-${keyCounter++}-${randomBytes(3).toString('hex')}`,
    ...overrides,
  }
}
