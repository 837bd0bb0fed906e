/**
 * The ledger verifier as an advertiser runs it: the SDK's `client.ledger.verify` (the code behind
 * `adctl ledger verify`) against a test service, with a test client's address and quick polling.
 */
import { createHash } from 'node:crypto'
import { AdvertiserClient, type VerifyResult } from '../../packages/sdk/src/index.ts'

export const nodeSha256 = (data: Uint8Array): Uint8Array => createHash('sha256').update(data).digest()

export interface ApiAccess {
  baseUrl: string
  userId: string
  apiKey: string
  /** Extra headers on every call (a test client's address). */
  headers?: Record<string, string>
  /** Between two reads of an export's status (the SDK's default is the API's 5 s). */
  pollMs?: number
  /** Days per export window (31 by default, the API's limit). */
  windowDays?: number
}

export async function verifyRange(api: ApiAccess, from: string, to: string): Promise<VerifyResult> {
  const client = new AdvertiserClient({
    baseUrl: api.baseUrl,
    userId: api.userId,
    apiKey: api.apiKey,
    fetch: (input, init) => {
      const request = new Request(input, init)
      for (const [name, value] of Object.entries(api.headers ?? {})) request.headers.set(name, value)
      return fetch(request)
    },
  })
  return client.ledger.verify({ from, to, pollMs: api.pollMs ?? 50, windowDays: api.windowDays })
}
