/** What a non-2xx answer carries: a sentence, or the offending input and why (advertiser spec section 2, Error). */
export type ErrorDetail = string | ({ field: string; reason: string } & Record<string, unknown>)

/**
 * The reason of an answer whose detail is a sentence (the spec gives 401 and 404 a string detail:
 * `invalid credentials`, `campaign not found`), so `reason` is a machine word for every refusal.
 */
const REASON_OF_STATUS: Record<number, string> = {
  401: 'invalid_credentials',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  410: 'gone',
  429: 'rate_limited',
  503: 'unavailable',
}

/**
 * Every refusal or failure of the API, as one class: the HTTP `status`, the machine `reason`
 * (the detail's `reason` when the detail is an object; for a sentence detail, the status's word:
 * 401 `invalid_credentials`, 403 `forbidden`, 404 `not_found`, 409 `conflict`, 410 `gone`, 429
 * `rate_limited`, 503 `unavailable`, else `http_{status}`) and the whole `detail`. A request that
 * never got an answer (network error, timeout) has status 0 and reason `network_error` or `timeout`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  readonly status: number
  readonly reason: string
  readonly detail: ErrorDetail
  /** The service's request id (`X-Request-Id`), to quote when reporting a problem. */
  readonly requestId: string | null
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfterS: number | null

  constructor(status: number, detail: ErrorDetail, options: { requestId?: string | null; retryAfterS?: number | null; reason?: string | null; cause?: unknown } = {}) {
    const reason = options.reason ?? (typeof detail === 'object' ? detail.reason : (REASON_OF_STATUS[status] ?? (status === 0 ? 'network_error' : `http_${status}`)))
    super(messageOf(status, detail, reason), options.cause === undefined ? undefined : { cause: options.cause })
    this.status = status
    this.reason = reason
    this.detail = detail
    this.requestId = options.requestId ?? null
    this.retryAfterS = options.retryAfterS ?? null
  }
}

function messageOf(status: number, detail: ErrorDetail, reason: string): string {
  const prefix = status === 0 ? 'no answer' : `HTTP ${status}`
  if (typeof detail === 'string') return `${prefix}: ${detail}`
  return `${prefix}: ${reason} (${detail.field})`
}

/** The `detail` of an error body, whatever the body was (a proxy's HTML page becomes its status line). */
export function detailOf(body: unknown, response: Response): ErrorDetail {
  if (typeof body === 'object' && body !== null && 'detail' in body) {
    const detail: unknown = body.detail
    if (typeof detail === 'string') return detail
    if (typeof detail === 'object' && detail !== null && 'field' in detail && 'reason' in detail) {
      const { field, reason } = detail
      if (typeof field === 'string' && typeof reason === 'string') return { ...detail, field, reason }
    }
  }
  return `${response.status} ${response.statusText}`.trim()
}
