export { AdvertiserClient } from './client.js'
export type * from './client.js'
export { ApiError, type ErrorDetail } from './errors.js'
export { baseUrlProblem, isLoopbackHost } from './origin.js'
export { retryAfterSeconds, type RetryOptions } from './retry.js'
export { verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks.js'
export type { paths } from './openapi.js'
export { collectEvidence, type LedgerVerifyOptions } from './ledger.js'
export { verifyLedger, type Discrepancy, type DiscrepancyKind, type VerifiedFigures, type VerifyInput, type VerifyResult } from './ledger-verify.js'
export { fetchTokenKeys, publishedTokenKeys, type IssuerKey, type PublishedTokenKeys } from './token-keys.js'
export {
  ATTESTATION_TOKEN_COLUMN,
  verifyExportTokens,
  type TokenCheck,
  type TokenDiscrepancy,
  type TokenFigures,
  type TokenRow,
  type TokenVerifyOptions,
  type TokenVerifyResult,
} from './export-tokens.js'
