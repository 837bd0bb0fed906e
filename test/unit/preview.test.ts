import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ApiError } from '../../src/domain/errors.ts'
import { validatePreview, type PreviewInput } from '../../src/domain/preview.ts'

const OK: PreviewInput = { ad_line: '  Ship faster with Acme CI  ', destination_url: 'https://acme.dev' }

const refusal = (input: PreviewInput) => {
  try {
    validatePreview(input)
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && typeof err.detail === 'object') return err.detail
    throw err
  }
  assert.fail('expected a 400')
}

test('preview: the line is trimmed, the destination shown exactly as sent, both surfaces by default', () => {
  assert.deepEqual(validatePreview(OK), {
    ad_line: 'Ship faster with Acme CI',
    destination_url: 'https://acme.dev', // a campaign would store https://acme.dev/
    brand: null,
    icon_url: null,
    target_surface: 'both',
  })
  const full = validatePreview({ ...OK, brand: ' Acme ', icon_url: 'https://acme.dev/i.png', target_surface: 'terminal' })
  assert.equal(full.brand, 'Acme')
  assert.equal(full.icon_url, 'https://acme.dev/i.png')
  assert.equal(full.target_surface, 'terminal')
})

test('preview: refused as a campaign creative would be, destination first', () => {
  assert.deepEqual(refusal({ ...OK, destination_url: 'http://acme.dev/' }), { field: 'destination_url', reason: 'https_required' })
  assert.deepEqual(refusal({ ad_line: 'x', destination_url: 'http://acme.dev/' }), { field: 'destination_url', reason: 'https_required' })
  assert.equal(refusal({ ...OK, ad_line: 'x' }).field, 'ad_line')
  assert.deepEqual(refusal({ ...OK, ad_line: 'Free crypto airdrop, claim now' }), { field: 'ad_line', reason: 'content_safety', category: 'scam' })
  assert.equal(refusal({ ...OK, brand: 'b'.repeat(121) }).field, 'brand')
  assert.equal(refusal({ ...OK, icon_url: 'http://acme.dev/i.png' }).field, 'icon_url')
})
