import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadSettings } from '../../src/platform/env.ts'
import { startService, ADMIN_TOKEN } from '../helpers/service.ts'

/**
 * TRUST_PROXY is a hop count (operations.md section 1): the client address is
 * that many entries from the right of X-Forwarded-For, so whatever a client
 * writes to the left of what the proxies appended is ignored. Observed
 * through the authentication lockout, which counts failures per address.
 */
async function lockoutProbe(trustProxy: string, chain: (spoofed: string) => string, victimChain: string) {
  const svc = await startService({ TRUST_PROXY: trustProxy })
  try {
    const created = await fetch(`${svc.baseUrl}/admin/v1/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'addr@example.dev' }),
    }).then((r) => r.json() as Promise<{ user_id: string; api_key: string }>)
    const good = { 'x-service-user-id': created.user_id, 'x-service-api-key': created.api_key }
    const bad = { 'x-service-user-id': created.user_id, 'x-service-api-key': 'sk_live_wrong' }
    const call = (xff: string, auth: Record<string, string>) =>
      fetch(`${svc.baseUrl}/v1/account`, { headers: { ...auth, 'x-forwarded-for': xff } }).then((r) => r.status)
    // Ten failures, each claiming another address on the left.
    for (let i = 0; i < 10; i++) assert.equal(await call(chain(`192.0.2.${i + 1}`), bad), 401)
    return {
      attackerAgain: await call(chain('192.0.2.200'), good),
      victim: await call(victimChain, good),
    }
  } finally {
    await svc.close()
  }
}

test('one proxy: the rightmost X-Forwarded-For entry is the client; a spoofed left part neither escapes nor frames anyone', async () => {
  // The proxy appends the real client (198.51.100.7) after whatever the client sent.
  const result = await lockoutProbe('1', (spoofed) => `${spoofed}, 198.51.100.7`, '198.51.100.99')
  assert.equal(result.attackerAgain, 429, 'the attacker stays locked whatever it writes on the left')
  assert.equal(result.victim, 200, 'the addresses it wrote (and others) are not locked')
})

test('two proxies: the second entry from the right is the client', async () => {
  const result = await lockoutProbe('2', (spoofed) => `${spoofed}, 198.51.100.8, 10.0.0.2`, '198.51.100.9, 10.0.0.2')
  assert.equal(result.attackerAgain, 429)
  assert.equal(result.victim, 200, 'another client behind the same inner proxy is not locked')
})

test('TRUST_PROXY must be a hop count: true and false are refused with a clear message', () => {
  for (const value of ['true', 'false', '0', '-1', 'yes', '11']) {
    assert.throws(() => loadSettings({ TRUST_PROXY: value }), /TRUST_PROXY: must be the number of reverse proxies/, value)
  }
  assert.equal(loadSettings({ TRUST_PROXY: '2' }).trustProxy, 2)
  assert.equal(loadSettings({}).trustProxy, 0)
})
