/**
 * A Privacy Pass client against a started service (issue 48; docs/attestation.md), as the real clients
 * use it: the challenge and key from a decision's WWW-Authenticate, token requests with an attester
 * JWT, and view reports carrying a token. Every token is made by the client library, for real.
 */
import assert from 'node:assert/strict'
import { AuthorizationHeader, publicVerif, TokenChallenge, WWWAuthenticateHeader } from '@cloudflare/privacypass-ts'

export interface Challenge {
  challenge: TokenChallenge
  tokenKey: Uint8Array
}

/** A decision's challenge and issuing key, parsed from its WWW-Authenticate header as a client does. */
export async function challengeOf(baseUrl: string, country: string, address = '198.51.100.200'): Promise<Challenge> {
  // The directory answers once the issuing key is held; decisions carry the challenge from then on.
  assert.equal((await fetch(`${baseUrl}/.well-known/private-token-issuer-directory`)).status, 200)
  const res = await fetch(`${baseUrl}/serve/v1/decisions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
    body: JSON.stringify({ surface: 'extension', viewer_id: `probe-${Math.random()}`, country }),
  })
  assert.equal(res.status, 200)
  const header = res.headers.get('www-authenticate')
  assert.ok(header, 'a decision answered 200 carries the challenge')
  const [parsed] = WWWAuthenticateHeader.parse(header)
  return { challenge: parsed!.challenge, tokenKey: parsed!.tokenKey }
}

/** One token request with `bearer`: the answer, and the client that can finalize it. */
export async function requestToken(baseUrl: string, bearer: string, { challenge, tokenKey }: Challenge) {
  const client = new publicVerif.Client(publicVerif.BlindRSAMode.PSS)
  const request = await client.createTokenRequest(challenge, tokenKey)
  const res = await fetch(`${baseUrl}/serve/v1/token-requests`, {
    method: 'POST',
    headers: { 'content-type': 'application/private-token-request', authorization: `Bearer ${bearer}` },
    body: new Uint8Array(request.serialize()),
  })
  return { res, client }
}

/** A token for `bearer`, as the `Authorization` header of a view report. */
export async function tokenHeader(baseUrl: string, bearer: string, challenge: Challenge): Promise<string> {
  const { res, client } = await requestToken(baseUrl, bearer, challenge)
  assert.equal(res.status, 200, await res.clone().text())
  assert.equal(res.headers.get('content-type'), 'application/private-token-response')
  const finalized = await client.finalize(new publicVerif.TokenResponse(new Uint8Array(await res.arrayBuffer())))
  return new AuthorizationHeader(finalized).toString(true)
}

/** A 10 s view report of `impressionId` from `address`, with `authorization` when given; its status. */
export async function viewWith(baseUrl: string, impressionId: string, authorization: string | null, address: string): Promise<number> {
  const res = await fetch(`${baseUrl}/serve/v1/impressions/${impressionId}/view`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address, ...(authorization ? { authorization } : {}) },
    body: JSON.stringify({ dwell_ms: 10_000 }),
  })
  return res.status
}
