import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { OfferSigner, type Offer } from '../../src/serving/offer-token.ts'

const secret = Buffer.from('8f2c6a1d9e4b7305a6c1f0e2d4b8a7931c5e6f7081a2b3c4d5e6f708192a3b4c', 'hex')
const offer: Offer = {
  campaignId: 'cmp_4Hk2',
  creativeId: 'crv_9Qz1',
  userId: 'usr_7Ab3',
  surface: 'terminal',
  country: 'DE',
  viewerKey: 'k3yK3yK3yK3yK3yK3yK3yK',
  offeredAtMs: Date.UTC(2026, 10, 2, 9, 0, 0),
}

test('an impression id carries its offer and verifies with the same secret', () => {
  const signer = new OfferSigner(secret)
  const id = signer.sign(offer)
  assert.match(id, /^imp_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/)
  assert.deepEqual(signer.verify(id), offer)
  assert.deepEqual(signer.verify(signer.sign({ ...offer, surface: 'extension', country: null })), { ...offer, surface: 'extension', country: null })
})

test('the MAC is HMAC-SHA256 of the payload under the raw secret, first 16 bytes: ids issued before a deploy keep verifying', () => {
  const id = new OfferSigner(secret).sign(offer)
  const [payload, mac] = id.slice('imp_'.length).split('.') as [string, string]
  assert.equal(mac, createHmac('sha256', secret).update(payload).digest().subarray(0, 16).toString('base64url'))
  assert.equal(new OfferSigner(secret).viewerKey('install-1'), createHmac('sha256', secret).update('viewer:install-1').digest('base64url').slice(0, 22))
})

test('a changed payload, a changed MAC or another secret is rejected', () => {
  const signer = new OfferSigner(secret)
  const id = signer.sign(offer)
  const [payload, mac] = id.slice('imp_'.length).split('.') as [string, string]
  const otherPayload = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('cmp_4Hk2', 'cmp_4Hk3')).toString('base64url')
  assert.equal(signer.verify(`imp_${otherPayload}.${mac}`), null)
  assert.equal(signer.verify(`imp_${payload}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`), null)
  assert.equal(new OfferSigner(Buffer.alloc(32, 1)).verify(id), null)
  assert.equal(signer.verify(`${id}x`), null)
})
