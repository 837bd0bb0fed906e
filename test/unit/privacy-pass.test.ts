import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { publicVerif, TokenChallenge, Token, TOKEN_TYPES, AuthorizationHeader, util, WWWAuthenticateHeader } from '@cloudflare/privacypass-ts'
import {
  BlindSigner,
  generateIssuerKey,
  parseToken,
  signatureValid,
  tokenChallenge,
  tokenKeyId,
  tokenOfAuthorization,
  verifierKey,
  wwwAuthenticate,
} from '../../src/platform/privacy-pass.ts'

/**
 * RFC 9578 Appendix A.2 (Issuance Protocol 2, Blind RSA 2048): five test vectors, as published
 * (test/fixtures/rfc9578-blind-rsa-vectors.json). skS is a PEM private key in hex, pkS the public
 * key in RFC 9578's SPKI (RSASSA-PSS OID), the rest the wire values.
 */
interface Vector {
  skS: string
  pkS: string
  token_challenge: string
  nonce: string
  blind: string
  salt: string
  token_request: string
  token_response: string
  token: string
}
const vectors: Vector[] = JSON.parse(readFileSync(new URL('../fixtures/rfc9578-blind-rsa-vectors.json', import.meta.url), 'utf8'))
const hex = (s: string) => Buffer.from(s, 'hex')
/** Bytes in a buffer of their own: the library reads `bytes.buffer` from offset 0 (see src/platform/privacy-pass.ts). */
const own = (s: string) => new Uint8Array(hex(s))
const pkcs8Of = (v: Vector) => Buffer.from(hex(v.skS).toString('utf8').replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, ''), 'base64')

test('RFC 9578 A.2: there are five vectors', () => assert.equal(vectors.length, 5))

vectors.forEach((v, i) => {
  test(`RFC 9578 A.2 vector ${i + 1}: the issuer's blind signature, the token's key id and digest, and the origin's check`, async () => {
    const signer = new BlindSigner({ tokenKey: hex(v.pkS), privateKey: pkcs8Of(v) })
    const signed = signer.sign(hex(v.token_request))
    assert.ok('response' in signed)
    assert.equal(signed.response.toString('hex'), v.token_response)

    const token = parseToken(hex(v.token))
    assert.ok(token)
    assert.equal(token.nonce.toString('hex'), v.nonce)
    assert.deepEqual(token.keyId, tokenKeyId(hex(v.pkS)))
    assert.deepEqual(token.challengeDigest, createHash('sha256').update(hex(v.token_challenge)).digest())
    const key = verifierKey(hex(v.pkS))
    assert.equal(signatureValid(token, key), true)
    // The library's own check agrees.
    const libraryKey = await crypto.subtle.importKey('spki', new Uint8Array(util.convertRSASSAPSSToEnc(own(v.pkS))), { name: 'RSA-PSS', hash: 'SHA-384' }, true, ['verify'])
    assert.equal(await new publicVerif.Origin(publicVerif.BlindRSAMode.PSS).verify(Token.deserialize(TOKEN_TYPES.BLIND_RSA, own(v.token)), libraryKey), true)

    // One flipped bit anywhere in the signed input or the authenticator fails.
    for (const at of [3, 40, 70, 100, 300]) {
      const bad = Buffer.from(hex(v.token))
      bad[at]! ^= 0x01
      assert.equal(signatureValid(parseToken(bad)!, key), false, `bit flipped at byte ${at}`)
    }
  })
})

test('a token made by the client library round-trips through this issuer and verifies at the origin', async () => {
  const pair = await generateIssuerKey()
  const challenge = tokenChallenge('ads.example:8443')
  const signer = new BlindSigner(pair)
  const client = new publicVerif.Client(publicVerif.BlindRSAMode.PSS)
  const request = await client.createTokenRequest(TokenChallenge.deserialize(new Uint8Array(challenge)), new Uint8Array(pair.tokenKey))
  const signed = signer.sign(Buffer.from(request.serialize()))
  assert.ok('response' in signed)
  // The library's own issuer computes the same signature.
  const params = { name: 'RSA-PSS', hash: 'SHA-384' }
  const libraryIssuer = new publicVerif.Issuer(
    publicVerif.BlindRSAMode.PSS,
    'ads.example:8443',
    await crypto.subtle.importKey('pkcs8', new Uint8Array(pair.privateKey), params, true, ['sign']),
    await crypto.subtle.importKey('spki', new Uint8Array(util.convertRSASSAPSSToEnc(new Uint8Array(pair.tokenKey))), params, true, ['verify']),
  )
  assert.deepEqual(Buffer.from((await libraryIssuer.issue(request)).serialize()), signed.response)
  const token = await client.finalize(new publicVerif.TokenResponse(signed.response))
  const header = new AuthorizationHeader(token).toString(true)
  const bytes = tokenOfAuthorization(header)
  assert.ok(Buffer.isBuffer(bytes))
  const parsed = parseToken(bytes)
  assert.ok(parsed)
  assert.deepEqual(parsed.keyId, tokenKeyId(pair.tokenKey))
  assert.deepEqual(parsed.challengeDigest, createHash('sha256').update(challenge).digest())
  assert.equal(signatureValid(parsed, verifierKey(pair.tokenKey)), true)
  // Another key does not verify it.
  const other = await generateIssuerKey()
  assert.equal(signatureValid(parsed, verifierKey(other.tokenKey)), false)
  // The challenge header parses back with the library.
  const www = wwwAuthenticate(challenge, pair.tokenKey)
  assert.match(www, /^PrivateToken challenge="[A-Za-z0-9_=-]+", token-key="[A-Za-z0-9_=-]+"$/)
  const [parsedHeader] = WWWAuthenticateHeader.parse(www)
  assert.deepEqual(Buffer.from(parsedHeader!.challenge.serialize()), challenge)
  assert.deepEqual(Buffer.from(parsedHeader!.tokenKey), pair.tokenKey)
})

test('requests the issuer refuses: wrong length or type, another key', async () => {
  const pair = await generateIssuerKey()
  const signer = new BlindSigner(pair)
  assert.deepEqual(signer.sign(Buffer.alloc(10)), { refused: 'malformed' })
  const request = Buffer.alloc(259)
  request.writeUInt16BE(0x0001, 0)
  assert.deepEqual(signer.sign(request), { refused: 'malformed' })
  request.writeUInt16BE(0x0002, 0)
  request[2] = (signer.truncatedKeyId + 1) % 256
  assert.deepEqual(signer.sign(request), { refused: 'unknown_key' })
  // A blinded message not below the modulus.
  request[2] = signer.truncatedKeyId
  request.fill(0xff, 3)
  assert.deepEqual(signer.sign(request), { refused: 'malformed' })
})

test('the Authorization header: PrivateToken with a quoted or bare token; anything else', () => {
  assert.deepEqual(tokenOfAuthorization('PrivateToken token="AAEC"'), Buffer.from([0, 1, 2]))
  assert.deepEqual(tokenOfAuthorization('privatetoken token=AAEC'), Buffer.from([0, 1, 2]))
  assert.equal(tokenOfAuthorization(undefined), null)
  assert.equal(tokenOfAuthorization('Bearer abc'), null)
  assert.equal(tokenOfAuthorization('PrivateToken nothing="x"'), 'malformed')
  assert.equal(tokenOfAuthorization('PrivateToken token=""'), 'malformed')
  assert.equal(parseToken(Buffer.alloc(100)), null)
})
