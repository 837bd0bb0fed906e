import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadSettings } from '../../src/platform/env.ts'
import { SecretSealer } from '../../src/platform/secret-sealing.ts'

/** The sealed copy of API keys (src/platform/secret-sealing.ts; docs/decisions/0238-revealable-keys-are-sealed-not-stored-in-clear.md). */
const keyA = { id: 3, key: Buffer.alloc(32, 0x11) }
const keyB = { id: 9, key: Buffer.alloc(32, 0x22) }
const apiKey = 'sk_live_0123456789abcdefghijABCDEFGHIJklmnopqrstu'

test('a sealed secret opens under the same ring and context, and is not readable in the sealed bytes', () => {
  const sealer = new SecretSealer([keyA])
  const sealed = sealer.seal(apiKey, 'api_key:usr_a')
  assert.equal(sealer.open(sealed, 'api_key:usr_a'), apiKey)
  assert.ok(!sealed.toString('latin1').includes('0123456789abcdef'))
  assert.equal(sealed[0], 1, 'format byte')
  assert.equal(sealed[1], 3, 'key id in clear')
  assert.notDeepEqual(sealer.seal(apiKey, 'api_key:usr_a'), sealed, 'a fresh nonce each time')
})

test('another context, an altered byte, a truncation or an unknown key do not open', () => {
  const sealer = new SecretSealer([keyA])
  const sealed = sealer.seal(apiKey, 'api_key:usr_a')
  assert.equal(sealer.open(sealed, 'api_key:usr_b'), null)
  for (let i = 0; i < sealed.length; i++) {
    const altered = Buffer.from(sealed)
    altered[i] = altered[i]! ^ 0x01
    assert.equal(sealer.open(altered, 'api_key:usr_a'), null, `byte ${i}`)
  }
  assert.equal(sealer.open(sealed.subarray(0, sealed.length - 1), 'api_key:usr_a'), null)
  assert.equal(sealer.open(Buffer.alloc(0), 'api_key:usr_a'), null)
  const other = new SecretSealer([keyB])
  assert.equal(other.canOpen(sealed), false)
  assert.equal(other.open(sealed, 'api_key:usr_a'), null)
  // Same id, another key: the id matches but the tag does not.
  const impostor = new SecretSealer([{ id: 3, key: Buffer.alloc(32, 0x33) }])
  assert.equal(impostor.canOpen(sealed), true)
  assert.equal(impostor.open(sealed, 'api_key:usr_a'), null)
})

test('rotation: the first key of the ring seals, every key opens', () => {
  const old = new SecretSealer([keyA]).seal(apiKey, 'c')
  const ring = new SecretSealer([keyB, keyA])
  assert.equal(ring.open(old, 'c'), apiKey)
  const fresh = ring.seal(apiKey, 'c')
  assert.equal(fresh[1], 9)
  assert.equal(new SecretSealer([keyA]).open(fresh, 'c'), null)
  assert.throws(() => new SecretSealer([]), /empty/)
  assert.throws(() => new SecretSealer([keyA, { id: 3, key: Buffer.alloc(32) }]), /unique/)
  assert.throws(() => new SecretSealer([{ id: 1, key: Buffer.alloc(16) }]), /32 bytes/)
})

test('KEY_SEALING_KEY: id:hex entries like OFFER_KEYS; unset means the key kept in the store', () => {
  const k = 'ab'.repeat(32)
  assert.equal(loadSettings({}).keySealingKeys, null)
  assert.deepEqual(loadSettings({ KEY_SEALING_KEY: `4:${k}` }).keySealingKeys, [{ id: 4, key: Buffer.from(k, 'hex') }])
  for (const bad of [k, `4:${k.slice(2)}`, `300:${k}`, `1:${k},1:${k}`]) {
    assert.throws(() => loadSettings({ KEY_SEALING_KEY: bad }), /^Error: KEY_SEALING_KEY:|KEY_SEALING_KEY:/, bad)
  }
})
