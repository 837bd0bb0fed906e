import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { signedInOperator } from '../helpers/ops.ts'

/**
 * The console's status page (/ops/components) says which sealing keys the
 * instance keeps in the database, as the start-up warning does
 * (test/api/sealing-keys.test.ts), and says nothing is kept there once
 * OFFER_KEYS and KEY_SEALING_KEY are set.
 */
const ring = () => `1:${randomBytes(32).toString('hex')}`
const inStore = useService()
const outside = useService({ OFFER_KEYS: ring(), KEY_SEALING_KEY: ring() })

test('with the keys unset, the Components page names each sealing key kept in the database and the setting that moves it', async () => {
  const page = await (await signedInOperator(inStore)).get('/ops/components')
  assert.equal(page.status, 200)
  assert.match(
    page.words,
    /Sealing keys Kept in the database Anyone with a copy of the database can open or forge what these keys seal: offer_key seals impression ids \(forged ids bill views and clicks\)\. Set OFFER_KEYS ?\. key_sealing_key seals the copies of API keys, the webhook signing secrets and the outbox emails\. Set KEY_SEALING_KEY ?\./,
  )
  assert.match(page.text, /<span class="badge warn">Kept in the database<\/span>/)
})

test('with both keys set, the Components page says the sealing keys are outside the database', async () => {
  const page = await (await signedInOperator(outside)).get('/ops/components')
  assert.equal(page.status, 200)
  assert.match(page.words, /Sealing keys Outside the database OFFER_KEYS and KEY_SEALING_KEY hold the sealing keys/)
  assert.doesNotMatch(page.words, /Kept in the database|offer_key|key_sealing_key/)
})
