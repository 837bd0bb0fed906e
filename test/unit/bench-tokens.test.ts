import assert from 'node:assert/strict'
import { createHash, createPrivateKey } from 'node:crypto'
import { createServer, connect, type AddressInfo } from 'node:net'
import { test } from 'node:test'
import { publicVerif, Token, TOKEN_TYPES, util } from '@cloudflare/privacypass-ts'
import { generateIssuerKey, parseToken, signatureValid, tokenChallenge, tokenKeyId, tokenOfAuthorization, verifierKey, wwwAuthenticate } from '../../src/platform/privacy-pass.ts'
import { roundTripProxy } from '../../bench/lib/pg-round-trips.ts'
import { parseChallengeHeader, TokenMinter, type IssuerKey } from '../../bench/lib/tokens.ts'

// The serving benchmark's attested views (bench/lib/tokens.ts) and the WAL probe's round-trip count (bench/lib/pg-round-trips.ts).

const issuerKey = async (period: number): Promise<IssuerKey> => {
  const pair = await generateIssuerKey()
  return { period, tokenKey: pair.tokenKey, privateKey: createPrivateKey({ key: pair.privateKey, format: 'der', type: 'pkcs8' }) }
}

test('the challenge header a decision carries parses back to its challenge and key; other headers do not', async () => {
  const key = await issuerKey(1)
  const challenge = tokenChallenge('ads.test:8080')
  const parsed = parseChallengeHeader(wwwAuthenticate(challenge, key.tokenKey))
  assert.ok(parsed)
  assert.deepEqual(parsed.challenge, challenge)
  assert.deepEqual(parsed.tokenKey, key.tokenKey)
  assert.equal(parseChallengeHeader(null), null)
  assert.equal(parseChallengeHeader('Bearer realm="x"'), null)
  assert.equal(parseChallengeHeader('PrivateToken challenge="AAEC"'), null)
})

test('minted tokens are valid type 2 tokens of the announced key and challenge, each with a nonce of its own', async () => {
  const [older, issuing] = [await issuerKey(7), await issuerKey(8)]
  const challenge = tokenChallenge('ads.test:8080')
  const minter = new TokenMinter({ challenge, tokenKey: issuing.tokenKey }, [issuing, older])
  assert.equal(minter.period, 8)
  const { authorizations } = minter.mint(5)
  assert.equal(authorizations.length, 5)
  const libraryKey = await crypto.subtle.importKey('spki', new Uint8Array(util.convertRSASSAPSSToEnc(new Uint8Array(issuing.tokenKey))), { name: 'RSA-PSS', hash: 'SHA-384' }, true, [
    'verify',
  ])
  const nonces = new Set<string>()
  for (const header of authorizations) {
    // As the view route reads it (src/http/routes/serve.ts, src/serving/issuer-keys.ts#check).
    const bytes = tokenOfAuthorization(header)
    assert.ok(Buffer.isBuffer(bytes))
    const token = parseToken(bytes)
    assert.ok(token)
    assert.deepEqual(token.challengeDigest, createHash('sha256').update(challenge).digest())
    assert.deepEqual(token.keyId, tokenKeyId(issuing.tokenKey))
    assert.equal(signatureValid(token, verifierKey(issuing.tokenKey)), true)
    assert.equal(signatureValid(token, verifierKey(older.tokenKey)), false)
    // And as an advertiser's verifier does, with the client library.
    assert.equal(await new publicVerif.Origin(publicVerif.BlindRSAMode.PSS).verify(Token.deserialize(TOKEN_TYPES.BLIND_RSA, new Uint8Array(bytes)), libraryKey), true)
    nonces.add(token.nonce.toString('hex'))
  }
  assert.equal(nonces.size, 5)
})

test('a minter refuses a key the store does not hold', async () => {
  const [held, announced] = [await issuerKey(1), await issuerKey(2)]
  assert.throws(() => new TokenMinter({ challenge: tokenChallenge('ads.test'), tokenKey: announced.tokenKey }, [held]), /none of the store's 1 keys/)
})

test('the round-trip proxy counts simple queries and Syncs, split across chunks, after the untyped startup messages', async () => {
  const received: Buffer[] = []
  const server = createServer((s) => s.on('data', (d: Buffer) => received.push(d)))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const proxy = await roundTripProxy(`postgres://u@127.0.0.1:${(server.address() as AddressInfo).port}/db`)
  try {
    const typed = (type: string, body: Buffer) => {
      const m = Buffer.alloc(5 + body.length)
      m.write(type, 0, 'latin1')
      m.writeInt32BE(4 + body.length, 1)
      body.copy(m, 5)
      return m
    }
    const untyped = (code: number, body: Buffer) => {
      const m = Buffer.alloc(8 + body.length)
      m.writeInt32BE(8 + body.length, 0)
      m.writeInt32BE(code, 4)
      body.copy(m, 8)
      return m
    }
    const stream = Buffer.concat([
      untyped(80877103, Buffer.alloc(0)), // SSLRequest
      untyped(196608, Buffer.from('user\0u\0database\0db\0\0')), // StartupMessage, protocol 3.0
      typed('Q', Buffer.from('SELECT 1\0')),
      typed('P', Buffer.from('\0SELECT $1\0\0\0')),
      typed('B', Buffer.alloc(10)),
      typed('E', Buffer.alloc(5)),
      typed('S', Buffer.alloc(0)),
      typed('p', Buffer.from('password with an S and Q in it\0')),
    ])
    const url = new URL(proxy.url)
    const socket = connect(Number(url.port), url.hostname)
    await new Promise<void>((r) => socket.once('connect', () => r()))
    // One byte at a time: every message boundary falls inside a chunk somewhere.
    for (const byte of stream) {
      socket.write(Buffer.from([byte]))
      await new Promise((r) => setImmediate(r))
    }
    for (let i = 0; i < 100 && Buffer.concat(received).length < stream.length; i++) await new Promise((r) => setTimeout(r, 10))
    assert.deepEqual(Buffer.concat(received), stream)
    assert.equal(proxy.count(), 2)
    socket.destroy()
  } finally {
    await proxy.close()
    await new Promise<void>((r) => server.close(() => r()))
  }
})
