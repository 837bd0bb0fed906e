import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { OfferSealer, type Offer } from '../../src/serving/offer-token.ts'
import { ViewerKeys } from '../../src/serving/viewer-keys.ts'

const keyA = { id: 7, key: Buffer.from('8f2c6a1d9e4b7305a6c1f0e2d4b8a7931c5e6f7081a2b3c4d5e6f708192a3b4c', 'hex') }
const keyB = { id: 8, key: Buffer.alloc(32, 0x5a) }
const offer: Offer = {
  campaignId: 'cmp_4Hk2Zq9LmN3pQ8rT5vW1xY',
  creativeId: 'crv_9Qz1Ab2Cd3Ef4Gh5Ij6Kl7',
  userId: 'usr_7Ab3Mn4Op5Qr6St7Uv8Wx9',
  surface: 'terminal',
  country: 'DE',
  viewerKey: 'k3yK3yK3yK3yK3yK3yK3yK',
  source: '2001:db8:aa:bb::/64',
  offeredAtMs: Date.UTC(2026, 10, 2, 9, 0, 0),
  origin: 0xdeadbeef,
}

test('an impression id carries its offer and opens under the same key', () => {
  const sealer = new OfferSealer([keyA])
  const id = sealer.seal(offer)
  assert.match(id, /^imp_[A-Za-z0-9_-]+$/)
  assert.deepEqual(sealer.open(id), offer)
  const other = { ...offer, surface: 'extension' as const, country: null, origin: 0 }
  assert.deepEqual(sealer.open(sealer.seal(other)), other)
  // The decision's source: an IPv4 address, an IPv6 /64, or none (an id sealed before sources were).
  for (const source of ['203.0.113.250', '::/64', null]) assert.deepEqual(sealer.open(sealer.seal({ ...offer, source })), { ...offer, source })
  assert.notEqual(sealer.seal(offer), id, 'a fresh nonce per id')
})

test('the attributed topic travels in the id (issue 40); an id without one opens as before, with none', () => {
  const sealer = new OfferSealer([keyA])
  for (const topic of ['python', 'github-actions']) {
    const withTopic = { ...offer, topic }
    assert.deepEqual(sealer.open(sealer.seal(withTopic)), withTopic)
    assert.deepEqual(sealer.open(sealer.seal({ ...withTopic, source: null, country: null })), { ...withTopic, source: null, country: null })
  }
  assert.equal(sealer.open(sealer.seal(offer))?.topic, undefined)
  assert.equal(sealer.open(sealer.seal({ ...offer, topic: null }))?.topic, undefined)
})

test('an id reveals no identifier in any decoding of any part of it', () => {
  const sealer = new OfferSealer([keyA])
  // Every six-character piece of every identifier: readable anywhere, it would be a leak (by chance: about 1e-9).
  const pieces = [offer.campaignId, offer.creativeId, offer.userId, offer.viewerKey].flatMap((s) =>
    Array.from({ length: s.length - 5 }, (_, i) => s.slice(i, i + 6)),
  )
  // The type prefixes, in the decoded bytes (four given bytes occur by chance about once in 2^32 positions).
  const prefixes = ['cmp_', 'crv_', 'usr_', 'imp_']
  for (let i = 0; i < 50; i++) {
    const text = sealer.seal(offer).slice('imp_'.length)
    for (const piece of pieces) assert.ok(!text.includes(piece), `"${piece}" readable in an id`)
    for (let from = 0; from < 4; from++) {
      const bytes = Buffer.from(text.slice(from), 'base64url')
      for (const decoded of [bytes.toString('latin1'), bytes.toString('hex'), Buffer.from(text.slice(from), 'base64').toString('latin1')]) {
        for (const needle of [...pieces, ...prefixes]) assert.ok(!decoded.includes(needle), `"${needle}" readable in a decoding of an id`)
      }
    }
  }
})

test('changing any character of an id, truncating or extending it makes it unknown', () => {
  const sealer = new OfferSealer([keyA])
  const id = sealer.seal(offer)
  for (let i = 0; i < id.length; i++) {
    for (const c of ['A', 'g', '-', '_', '0']) {
      if (id[i] === c) continue
      assert.equal(sealer.open(id.slice(0, i) + c + id.slice(i + 1)), null, `character ${i} changed to ${c}`)
    }
  }
  assert.equal(sealer.open(id.slice(0, -1)), null)
  assert.equal(sealer.open(`${id}A`), null)
  assert.equal(sealer.open(`${id}AAAA`), null)
  assert.equal(sealer.open('imp_'), null)
})

test('rotation: the new key seals, ids sealed under the previous key still open, an unknown key id is unknown', () => {
  const before = new OfferSealer([keyA])
  const after = new OfferSealer([keyB, keyA])
  const old = before.seal(offer)
  assert.deepEqual(after.open(old), offer, 'sealed before the rotation')
  const fresh = after.seal(offer)
  assert.equal(Buffer.from(fresh.slice(4), 'base64url')[0], keyB.id, 'the first key of the ring seals')
  assert.deepEqual(after.open(fresh), offer)
  assert.equal(before.open(fresh), null, 'an instance that does not know the new key')
  assert.equal(new OfferSealer([keyB]).open(old), null, 'the previous key retired')
  // The same key under another id: the key id is authenticated, not just looked up.
  assert.equal(new OfferSealer([{ id: 9, key: keyA.key }]).open(old), null)
  const relabelled = Buffer.from(old.slice(4), 'base64url')
  relabelled[0] = 9
  assert.equal(new OfferSealer([{ id: 9, key: keyA.key }]).open(`imp_${relabelled.toString('base64url')}`), null)
})

test('a ring must be valid', () => {
  assert.throws(() => new OfferSealer([]))
  assert.throws(() => new OfferSealer([{ id: 256, key: keyA.key }]))
  assert.throws(() => new OfferSealer([keyA, { ...keyB, id: keyA.id }]))
  assert.throws(() => new OfferSealer([{ id: 1, key: Buffer.alloc(16) }]))
})

test('the readable ids of before sealing (HMAC under the serving secret, kept in the store) open no more', () => {
  const secret = Buffer.alloc(32, 3)
  const fields = [offer.campaignId, offer.creativeId, offer.userId, 't', 'DE', offer.viewerKey, offer.offeredAtMs.toString(36), 'nonce1']
  const payload = Buffer.from(fields.join('~')).toString('base64url')
  const mac = createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url')
  assert.equal(new OfferSealer([keyA]).open(`imp_${payload}.${mac}`), null, 'a copy of the database must not forge an id')
})

test('a viewer key is a keyed hash of the install id, stable across deploys', () => {
  const secret = Buffer.alloc(32, 3)
  assert.equal(new ViewerKeys(secret).of('install-1'), createHmac('sha256', secret).update('viewer:install-1').digest('base64url').slice(0, 22))
})
