/**
 * The client without webhook verification (and its hashing dependency): what a program that only
 * calls the API imports (`advertiser-campaign-sdk/client`), to start faster. adctl does.
 */
export { AdvertiserClient } from './client.js'
export type * from './client.js'
export { ApiError, type ErrorDetail } from './errors.js'
export { baseUrlProblem, isLoopbackHost } from './origin.js'
export { retryAfterSeconds, type RetryOptions } from './retry.js'
export type { LedgerVerifyOptions } from './ledger.js'
export type { Discrepancy, VerifiedFigures, VerifyResult } from './ledger-verify.js'
export { fetchTokenKeys, publishedTokenKeys, type IssuerKey, type PublishedTokenKeys } from './token-keys.js'
export type { TokenDiscrepancy, TokenFigures, TokenVerifyResult } from './export-tokens.js'
