/**
 * The error catalogue. Domain and service code throw ApiError; one mapper in
 * src/http/plugins/errors.ts turns it into an HTTP response whose body is
 * always `{ detail }` (a string, or an object naming the input).
 */
export type FieldDetail = { field: string; reason: string } & Record<string, unknown>
export type Detail = string | FieldDetail

export class ApiError extends Error {
  readonly status: number
  readonly detail: Detail
  readonly headers: Record<string, string>

  constructor(status: number, detail: Detail, headers: Record<string, string> = {}) {
    super(typeof detail === 'string' ? detail : `${detail.field}: ${detail.reason}`)
    this.status = status
    this.detail = detail
    this.headers = headers
  }
}

export const invalid = (field: string, reason: string, extra: Record<string, unknown> = {}): ApiError =>
  new ApiError(400, { field, reason, ...extra })

export const notFound = (what: string): ApiError => new ApiError(404, `${what} not found`)

export const conflict = (detail: Detail): ApiError => new ApiError(409, detail)

export const INVALID_CREDENTIALS = 'invalid credentials'

export const unauthorized = (): ApiError => new ApiError(401, INVALID_CREDENTIALS)

export const tooManyRequests = (retryAfterSeconds: number, detail: string): ApiError =>
  new ApiError(429, detail, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) })

/** 503 messages clients act on (advertiser spec, POST /campaigns rule 6). */
export const NOT_ACCEPTING_ORDERS = 'campaign submission is not accepting orders; do not retry in a loop'
export const PROVISIONING_INCOMPLETE = 'order provisioning incomplete; retry the identical body with the same idempotency_key'
export const STORE_UNAVAILABLE = 'store temporarily unavailable; retry after a pause'
