import createClient, { type Client } from 'openapi-fetch'
import { ApiError, detailOf } from './errors.js'
import type { LedgerVerifyOptions } from './ledger.js'
import type { VerifyResult } from './ledger-verify.js'
import type { paths } from './openapi.js'
import { baseUrlProblem, fetchWithinOrigin } from './origin.js'
import { retryAfterAnswer, retryDelayMs, retryPolicy, sleep, type RetryOptions, type RetryPolicy } from './retry.js'
import { publishedTokenKeys, type PublishedTokenKeys } from './token-keys.js'

type Json<Op, Status extends number> = Op extends { responses: { [S in Status]: { content: { 'application/json': infer B } } } } ? B : never
type Body<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } } ? B : Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never

export type Account = Json<paths['/account']['get'], 200>
export type ComponentStatus = Json<paths['/status']['get'], 200>
export type Campaign = Json<paths['/campaigns/{campaign_id}']['get'], 200>
/** A campaign as lists show it (without its creatives; `get` has them). */
export type CampaignSummary = Json<paths['/campaigns']['get'], 200>['campaigns'][number]
export type CampaignCreate = Body<paths['/campaigns']['post']>
export type CampaignCreated = Json<paths['/campaigns']['post'], 201>
export type CampaignEdit = Body<paths['/campaigns/{campaign_id}']['patch']>
export type Creative = Json<paths['/creatives/{creative_id}']['get'], 200>
export type PreviewCreate = Body<paths['/preview']['post']>
export type Preview = Json<paths['/preview']['post'], 201>
export type ExportJob = Json<paths['/exports/{export_id}']['get'], 200>
export type ExportJobSummary = Json<paths['/exports']['get'], 200>['exports'][number]
/** GET /stats's query as the API names it (`start`/`end`). */
export type StatsApiQuery = Query<paths['/stats']['get']>
/**
 * `stats()`'s query: the API's, with the window as `from` (inclusive) and `to` (exclusive), the
 * names every range of the SDK uses (ledger.days, ledger.verify, transparency, exports.create).
 */
export type StatsQuery = Omit<StatsApiQuery, 'start' | 'end'> & Window
/** POST /exports's body as the API names it (`start`/`end`). */
export type ExportApiCreate = Body<paths['/exports']['post']>
/** `exports.create()`'s body: the API's, with the window as `from` (inclusive) and `to` (exclusive). */
export type ExportCreate = Omit<ExportApiCreate, 'start' | 'end'> & Window
/**
 * A window of time: `from` inclusive, `to` exclusive (ISO 8601 instants). `start`/`end`, the API's
 * own names, are still taken (deprecated): give one pair, not both.
 */
export interface Window {
  from?: string
  to?: string
  /** @deprecated Use `from` (the SDK's one name for the start of a range). */
  start?: string
  /** @deprecated Use `to`. */
  end?: string
}
export type Stats = Json<paths['/stats']['get'], 200>
export type QuoteQuery = Query<paths['/auction/quote']['get']>
export type Quote = Json<paths['/auction/quote']['get'], 200>
export type WebhookEndpointCreate = Body<paths['/webhook-endpoints']['post']>
export type WebhookEndpointCreated = Json<paths['/webhook-endpoints']['post'], 201>
export type WebhookEndpoint = Json<paths['/webhook-endpoints/{endpoint_id}']['get'], 200>
export type LedgerDaysQuery = Query<paths['/ledger/days']['get']>
export type LedgerDaysPage = Json<paths['/ledger/days']['get'], 200>
export type LedgerDay = LedgerDaysPage['days'][number]
export type InclusionProof = Json<paths['/ledger/days/{date}/proof']['get'], 200>
export type Invoice = Json<paths['/invoices/{invoice_id}']['get'], 200>
export type InvoiceSummary = Json<paths['/invoices']['get'], 200>['invoices'][number]
/** A day's published tree head (`/transparency.json`, outside /v1, no credentials). */
export interface TreeHead {
  date: string
  tree_size: number
  root_hash: string
}
export type WebhookEndpointSummary = Json<paths['/webhook-endpoints']['get'], 200>['endpoints'][number]

/** `campaigns.create` takes the API's body; the idempotency key is optional here (one is made when absent). */
export type CampaignCreateInput = Omit<CampaignCreate, 'idempotency_key'> & { idempotency_key?: string }

export interface AdvertiserClientOptions {
  /**
   * The service (`https://ads.example.com`) or the API's base URL (`https://ads.example.com/v1`):
   * the `/v1` prefix is added when absent.
   */
  baseUrl: string
  userId: string
  apiKey: string
  retry?: RetryOptions
  /** How long one attempt may take before it is abandoned (default 30 s). */
  timeoutMs?: number
  /** The platform's fetch unless given (a proxy agent, a test double). */
  fetch?: typeof globalThis.fetch
  /** How a retry waits (default: a timer); tests pass one that moves a manual clock. */
  sleep?: (ms: number) => Promise<void>
  /** Sent as User-Agent where the platform allows it (browsers keep their own). */
  userAgent?: string
  /**
   * Allows a plain `http://` baseUrl to a host other than loopback (`localhost`, 127.0.0.0/8, ::1).
   * Off by default: the API key would cross the network unencrypted, so such a client is not made.
   */
  allowInsecureHttp?: boolean
}

interface Answer<T> {
  data?: T
  error?: unknown
  response: Response
}

/** Export jobs that will not change any more. */
const FINAL_EXPORT_STATES = new Set(['ready', 'failed'])

/**
 * A typed client of the Advertiser Campaign API. Credentials are given once; every call retries
 * 429 and 503 as `retry.ts` says; refusals and failures throw `ApiError`.
 *
 * ```ts
 * const client = new AdvertiserClient({ baseUrl, userId, apiKey })
 * for await (const c of client.campaigns.list()) console.log(c.name, c.status)
 * ```
 */
export class AdvertiserClient {
  readonly baseUrl: string
  readonly userId: string
  readonly #api: Client<paths>
  readonly #policy: RetryPolicy
  readonly #timeoutMs: number
  readonly #sleep: (ms: number) => Promise<void>
  readonly #fetch: typeof globalThis.fetch

  constructor(options: AdvertiserClientOptions) {
    if (!options.userId || !options.apiKey) throw new TypeError('AdvertiserClient needs userId and apiKey')
    const problem = baseUrlProblem(options.baseUrl, options.allowInsecureHttp ?? false)
    if (problem !== null) throw new TypeError(`AdvertiserClient: ${problem}`)
    const trimmed = options.baseUrl.replace(/\/+$/, '')
    this.baseUrl = trimmed.endsWith('/v1') ? trimmed : `${trimmed}/v1`
    this.userId = options.userId
    this.#policy = retryPolicy(options.retry)
    this.#timeoutMs = options.timeoutMs ?? 30_000
    this.#sleep = options.sleep ?? sleep
    const fetchImpl = options.fetch ?? globalThis.fetch
    // Every request, the API's and the public log's, follows redirects only within the service's origin.
    const origin = new URL(this.baseUrl).origin
    this.#fetch = (input, init) => fetchWithinOrigin(fetchImpl, new Request(input, init), origin)
    this.#api = createClient<paths>({
      baseUrl: this.baseUrl,
      fetch: (request) => fetchWithinOrigin(fetchImpl, request, origin),
      headers: {
        'x-service-user-id': options.userId,
        'x-service-api-key': options.apiKey,
        ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
      },
    })
  }

  /**
   * One call with the retry policy. `safe` says whether a request that got no answer may be sent
   * again (reads, and writes carrying an idempotency key).
   */
  async #call<T>(safe: boolean, send: (signal: AbortSignal) => Promise<Answer<T>>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let answer: Answer<T>
      try {
        answer = await send(AbortSignal.timeout(this.#timeoutMs))
      } catch (error) {
        // A refusal of the client's own (a redirect to another origin) is final: sending again changes nothing.
        if (error instanceof ApiError) throw error
        const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
        if (safe && attempt <= this.#policy.maxRetries) {
          await this.#sleep(retryDelayMs(this.#policy, attempt, null))
          continue
        }
        const reason = timedOut ? 'timeout' : 'network_error'
        const detail = timedOut ? `no answer within ${this.#timeoutMs} ms` : `could not reach ${this.baseUrl}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`
        throw new ApiError(0, detail, { reason, cause: error })
      }
      const { response } = answer
      if (response.ok && answer.data !== undefined) return answer.data
      const delay = retryAfterAnswer(this.#policy, attempt, response, Date.now())
      if (delay !== null) {
        await this.#sleep(delay)
        continue
      }
      const retryAfter = response.headers.get('retry-after')
      throw new ApiError(response.status, detailOf(answer.error, response), {
        requestId: response.headers.get('x-request-id'),
        retryAfterS: retryAfter === null || !Number.isFinite(Number(retryAfter)) ? null : Number(retryAfter),
      })
    }
  }

  /** GET /account: the account, its balance and the live order config. */
  account = (): Promise<Account> => this.#call(true, (signal) => this.#api.GET('/account', { signal }))

  /** GET /status: the public component status (no credentials needed, but they are sent). */
  status = (): Promise<ComponentStatus> => this.#call(true, (signal) => this.#api.GET('/status', { signal }))

  readonly campaigns = {
    /**
     * POST /campaigns. Without `idempotency_key` one is made (a random UUID), so the create is
     * retried safely after a timeout, a lost answer or "order provisioning incomplete": a repeat
     * answers the same campaign with `replayed: true`.
     */
    create: (input: CampaignCreateInput): Promise<CampaignCreated> => {
      const body: CampaignCreate = { ...input, idempotency_key: input.idempotency_key ?? crypto.randomUUID() }
      return this.#call(true, (signal) => this.#api.POST('/campaigns', { body, signal }))
    },
    /** GET /campaigns, every page: `for await (const c of client.campaigns.list())`. */
    list: (query: { limit?: number } = {}): AsyncGenerator<CampaignSummary> =>
      this.#pages((cursor, signal) => this.#api.GET('/campaigns', { params: { query: { ...query, cursor } }, signal }), (page) => page.campaigns),
    get: (campaignId: string): Promise<Campaign> => this.#call(true, (signal) => this.#api.GET('/campaigns/{campaign_id}', { params: { path: { campaign_id: campaignId } }, signal })),
    /** PATCH: rename (`name`) and/or rewrite the ad line (`ad_line`, a new creative in review). */
    update: (campaignId: string, edit: CampaignEdit): Promise<Campaign> =>
      this.#call(false, (signal) => this.#api.PATCH('/campaigns/{campaign_id}', { params: { path: { campaign_id: campaignId } }, body: edit, signal })),
    pause: (campaignId: string): Promise<Campaign> => this.#call(false, (signal) => this.#api.POST('/campaigns/{campaign_id}/pause', { params: { path: { campaign_id: campaignId } }, signal })),
    resume: (campaignId: string): Promise<Campaign> => this.#call(false, (signal) => this.#api.POST('/campaigns/{campaign_id}/resume', { params: { path: { campaign_id: campaignId } }, signal })),
    /** DELETE: cancels; what was delivered stays billed, the rest is released. */
    cancel: (campaignId: string): Promise<Campaign> => this.#call(false, (signal) => this.#api.DELETE('/campaigns/{campaign_id}', { params: { path: { campaign_id: campaignId } }, signal })),
    /** POST /campaigns/{id}/preview: a presentation-only preview link of an owned campaign. */
    preview: (campaignId: string): Promise<Preview> =>
      this.#call(false, (signal) => this.#api.POST('/campaigns/{campaign_id}/preview', { params: { path: { campaign_id: campaignId } }, signal })),
  }

  readonly creatives = {
    list: async (): Promise<Creative[]> => (await this.#call(true, (signal) => this.#api.GET('/creatives', { signal }))).creatives,
    get: (creativeId: string): Promise<Creative> => this.#call(true, (signal) => this.#api.GET('/creatives/{creative_id}', { params: { path: { creative_id: creativeId } }, signal })),
  }

  readonly previews = {
    /** POST /preview: how an unfunded line would look. */
    create: (body: PreviewCreate): Promise<Preview> => this.#call(false, (signal) => this.#api.POST('/preview', { body, signal })),
    revoke: (previewToken: string) => this.#call(false, (signal) => this.#api.DELETE('/previews/{preview_token}', { params: { path: { preview_token: previewToken } }, signal })),
  }

  /** GET /stats: delivery metrics over [from, to), by hour, day or month (no window: the API's, the last 7 complete UTC days). */
  stats = (query: StatsQuery = {}): Promise<Stats> => {
    const { from, to, start, end, ...rest } = query
    const api: StatsApiQuery = { ...rest, ...apiWindow({ from, to, start, end }) }
    return this.#call(true, (signal) => this.#api.GET('/stats', { params: { query: api }, signal }))
  }

  /** GET /auction/quote: where a bid would rank now and when it would start and finish. */
  quote = (query: QuoteQuery): Promise<Quote> => this.#call(true, (signal) => this.#api.GET('/auction/quote', { params: { query }, signal }))

  readonly exports = {
    /** POST /exports: queues a CSV export of the raw ledger. */
    create: (input: ExportCreate): Promise<ExportJob> => {
      const { from, to, start, end, ...rest } = input
      const window = apiWindow({ from, to, start, end })
      if (window.start === undefined || window.end === undefined) throw new TypeError('exports.create needs `from` and `to`')
      const body: ExportApiCreate = { ...rest, start: window.start, end: window.end }
      return this.#call(false, (signal) => this.#api.POST('/exports', { body, signal }))
    },
    list: (query: { limit?: number } = {}): AsyncGenerator<ExportJobSummary> =>
      this.#pages((cursor, signal) => this.#api.GET('/exports', { params: { query: { ...query, cursor } }, signal }), (page) => page.exports),
    get: (exportId: string): Promise<ExportJob> => this.#call(true, (signal) => this.#api.GET('/exports/{export_id}', { params: { path: { export_id: exportId } }, signal })),
    /**
     * Polls a job until it is `ready` or `failed` (every `pollMs`, default 5 s, the spec's
     * guidance), calling `onStatus` on each answer.
     */
    wait: async (exportId: string, options: { pollMs?: number; onStatus?: (job: ExportJob) => void } = {}): Promise<ExportJob> => {
      for (;;) {
        const job = await this.exports.get(exportId)
        options.onStatus?.(job)
        if (FINAL_EXPORT_STATES.has(job.status)) return job
        await this.#sleep(options.pollMs ?? 5_000)
      }
    },
    /** GET /exports/{id}/download: the CSV's exact bytes (409 before ready, 410 once expired). */
    download: async (exportId: string): Promise<Uint8Array> => {
      const bytes = await this.#call(true, (signal) => this.#api.GET('/exports/{export_id}/download', { params: { path: { export_id: exportId } }, parseAs: 'arrayBuffer', signal }))
      return new Uint8Array(bytes)
    },
  }

  readonly webhooks = {
    /** POST /webhook-endpoints: the answer carries the signing secret, shown this once. */
    create: (body: WebhookEndpointCreate): Promise<WebhookEndpointCreated> => this.#call(false, (signal) => this.#api.POST('/webhook-endpoints', { body, signal })),
    list: async (): Promise<WebhookEndpointSummary[]> => (await this.#call(true, (signal) => this.#api.GET('/webhook-endpoints', { signal }))).endpoints,
    get: (endpointId: string): Promise<WebhookEndpoint> =>
      this.#call(true, (signal) => this.#api.GET('/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpointId } }, signal })),
    remove: (endpointId: string) =>
      this.#call(false, (signal) => this.#api.DELETE('/webhook-endpoints/{endpoint_id}', { params: { path: { endpoint_id: endpointId } }, signal })),
    resend: (endpointId: string, deliveryId: string) =>
      this.#call(false, (signal) =>
        this.#api.POST('/webhook-endpoints/{endpoint_id}/deliveries/{delivery_id}/resend', { params: { path: { endpoint_id: endpointId, delivery_id: deliveryId } }, signal }),
      ),
  }

  readonly ledger = {
    /**
     * GET /ledger/days, every page: the closed days with rows in [from, to] and `closed_through`
     * (the last day closed, read from the first page: a day closing while paging waits for the next call).
     */
    days: async (query: Omit<LedgerDaysQuery, 'cursor'>): Promise<{ days: LedgerDay[]; closed_through: string | null }> => {
      const days: LedgerDay[] = []
      let closedThrough: string | null | undefined
      let cursor: string | undefined
      do {
        const page = await this.#call(true, (signal) => this.#api.GET('/ledger/days', { params: { query: { ...query, cursor } }, signal }))
        days.push(...page.days)
        if (closedThrough === undefined) closedThrough = page.closed_through
        cursor = page.next_cursor ?? undefined
      } while (cursor !== undefined)
      return { days, closed_through: closedThrough ?? null }
    },
    /** GET /ledger/days/{date}/proof: the account root's inclusion proof in that day's public tree. */
    proof: (date: string): Promise<InclusionProof> => this.#call(true, (signal) => this.#api.GET('/ledger/days/{date}/proof', { params: { path: { date } }, signal })),
    /**
     * Proves [from, to] from the outside (docs/ledger-verification.md): downloads the days' exports,
     * recomputes each day's root and the chain, checks each root's inclusion in the published tree
     * and that the invoices' micros per day add up. `{ verified: true, figures }`, or the first
     * discrepancy with its day and, where the data can tell, the row.
     */
    verify: async (options: LedgerVerifyOptions): Promise<VerifyResult> => {
      const { verifyLedgerRange } = await import('./ledger.js')
      return verifyLedgerRange(this, this.userId, options)
    },
  }

  readonly invoices = {
    list: (query: { limit?: number } = {}): AsyncGenerator<InvoiceSummary> =>
      this.#pages((cursor, signal) => this.#api.GET('/invoices', { params: { query: { ...query, cursor } }, signal }), (page) => page.invoices),
    get: (invoiceId: string): Promise<Invoice> => this.#call(true, (signal) => this.#api.GET('/invoices/{invoice_id}', { params: { path: { invoice_id: invoiceId } }, signal })),
  }

  /** The public log's tree heads (`/transparency.json` at the service's root), optionally of [from, to]. */
  transparency = async (range: { from?: string; to?: string } = {}): Promise<TreeHead[]> => {
    const url = new URL(`${this.baseUrl.replace(/\/v1$/, '')}/transparency.json`)
    if (range.from) url.searchParams.set('from', range.from)
    if (range.to) url.searchParams.set('to', range.to)
    const body: unknown = await this.#call(true, async (signal) => {
      const response = await this.#fetch(url, { signal })
      return response.ok ? { data: await response.json(), response } : { error: await response.json().catch(() => undefined), response }
    })
    return treeHeads(body)
  }

  /**
   * The Privacy Pass issuer keys the service ever used and its token challenge (`/transparency.json`'s
   * `issuer_keys` and `token_challenge`), what `verifyExportTokens` checks a ledger-export-v4 file against.
   */
  tokenKeys = async (): Promise<PublishedTokenKeys> => {
    const url = new URL(`${this.baseUrl.replace(/\/v1$/, '')}/transparency.json`)
    const body: unknown = await this.#call(true, async (signal) => {
      const response = await this.#fetch(url, { signal })
      return response.ok ? { data: await response.json(), response } : { error: await response.json().catch(() => undefined), response }
    })
    return publishedTokenKeys(body)
  }

  /** Walks `next_cursor` page by page, yielding items as they arrive. */
  async *#pages<P extends { next_cursor?: string | null }, I>(fetchPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Answer<P>>, items: (page: P) => I[]): AsyncGenerator<I> {
    let cursor: string | undefined
    do {
      const page = await this.#call(true, (signal) => fetchPage(cursor, signal))
      yield* items(page)
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
  }
}

/** A window's `from`/`to` as the API's `start`/`end`; the deprecated names still work, not mixed with the new ones. */
function apiWindow(w: Window): { start?: string; end?: string } {
  if ((w.from !== undefined || w.to !== undefined) && (w.start !== undefined || w.end !== undefined)) {
    throw new TypeError('give the window as `from`/`to` (or the deprecated `start`/`end`), not both')
  }
  const start = w.from ?? w.start
  const end = w.to ?? w.end
  return { ...(start !== undefined ? { start } : {}), ...(end !== undefined ? { end } : {}) }
}

/** The heads of a `/transparency.json` answer, checked field by field (it is outside the typed /v1 document). */
function treeHeads(body: unknown): TreeHead[] {
  const heads = typeof body === 'object' && body !== null && 'heads' in body ? body.heads : undefined
  if (!Array.isArray(heads)) throw new ApiError(200, '/transparency.json did not answer { heads: [...] }', { reason: 'bad_transparency_log' })
  return heads.map((h: unknown) => {
    if (typeof h === 'object' && h !== null && 'date' in h && 'tree_size' in h && 'root_hash' in h) {
      const { date, tree_size, root_hash } = h
      if (typeof date === 'string' && typeof tree_size === 'number' && typeof root_hash === 'string') return { date, tree_size, root_hash }
    }
    throw new ApiError(200, `/transparency.json carries a malformed head: ${JSON.stringify(h)}`, { reason: 'bad_transparency_log' })
  })
}
