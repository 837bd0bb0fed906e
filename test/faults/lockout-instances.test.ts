import assert from 'node:assert/strict'
import { randomInt } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { Redis } from 'ioredis'
import { LOCKOUT_THRESHOLD, lockoutKeys } from '../../src/domain/rate-limits.ts'
import { redisReachable, TEST_REDIS_URL } from '../helpers/create-budget.ts'
import { createDatabase, STORE } from '../helpers/service.ts'
import { CHILD_ADMIN_TOKEN, freePort, spawnService, waitHealthy, type Child } from '../helpers/child-service.ts'

/**
 * The lockout holds across instances (issue 23): two service processes on
 * one real Redis, 300 parallel bad attempts from one client address spread
 * over both, and at most LOCKOUT_THRESHOLD credentials are ever checked (the
 * rest answer 429 without a check). The same for the operator token.
 *
 * The lockout lives in Redis, so on the embedded store each process has a
 * DATA_DIR of its own (the bad attempts need no account); on PostgreSQL both
 * share one database. Both trust one proxy hop, and every run uses an
 * address of its own, so the Redis keys it touches are its own; they are
 * deleted afterwards.
 */

const ADMIN = CHILD_ADMIN_TOKEN
const ATTEMPTS = 300
const skip = (await redisReachable()) ? false : `no Redis at ${TEST_REDIS_URL}`


function start(env: Record<string, string>): Child {
  return spawnService({ ...env, REDIS_URL: TEST_REDIS_URL, TRUST_PROXY: '1' })
}


const children: Child[] = []
const bases: string[] = []
const cleanups: (() => Promise<void>)[] = []
let redis: Redis

before(async () => {
  if (skip) return
  redis = new Redis(TEST_REDIS_URL)
  let shared: Record<string, string> = {}
  if (STORE === 'postgres') {
    const db = await createDatabase(process.env.TEST_DATABASE_URL!, 'adapi_lockout')
    shared = { DATABASE_URL: db.url }
    cleanups.push(db.drop)
  }
  for (let i = 0; i < 2; i++) {
    const port = await freePort()
    const env: Record<string, string> = { ...shared, PORT: String(port) }
    if (STORE === 'embedded') {
      const dir = mkdtempSync(join(tmpdir(), 'adapi-lockout-'))
      env.DATA_DIR = dir
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    }
    children.push(start(env))
    bases.push(`http://127.0.0.1:${port}`)
    // On PostgreSQL one at a time (the first applies the migrations); embedded stores are each their own.
    if (STORE === 'postgres') await waitHealthy(bases[i]!, children[i])
  }
  await Promise.all(bases.map((base, i) => waitHealthy(base, children[i])))
})

after(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.process.exitCode !== null || child.process.signalCode !== null) return
      child.process.kill('SIGTERM')
      await child.exit
    }),
  )
  for (const cleanup of cleanups) await cleanup()
  await redis?.quit()
})

/** An address no other run uses (TEST-NET-2 plus randomness), and a function that deletes its lockout keys of `scope`. */
function freshAddress(scope: 'api' | 'admin'): { address: string; forget: () => Promise<unknown> } {
  const address = `198.18.${randomInt(0, 256)}.${randomInt(1, 255)}`
  const keys = lockoutKeys(scope, address)
  return {
    address,
    forget: () => redis.del(`adapi:lock:${keys.lock}`, `adapi:log:${keys.failures}`, `adapi:pending:${keys.failures}`),
  }
}

/** `ATTEMPTS` requests at once, alternating between the two instances; the count of each status. */
async function storm(path: string, headers: Record<string, string>): Promise<Map<number, number>> {
  const statuses = await Promise.all(
    Array.from({ length: ATTEMPTS }, (_, i) => fetch(bases[i % 2]! + path, { headers }).then(async (r) => (await r.arrayBuffer(), r.status))),
  )
  const counts = new Map<number, number>()
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1)
  return counts
}

test(`${ATTEMPTS} parallel bad API keys over two instances: at most ${LOCKOUT_THRESHOLD} are checked, the rest are 429`, { skip, timeout: 120_000 }, async () => {
  const { address, forget } = freshAddress('api')
  await forget()
  try {
    const counts = await storm('/v1/account', { 'x-forwarded-for': address, 'x-service-user-id': 'usr_nobody', 'x-service-api-key': 'sk_live_wrong' })
    const checked = counts.get(401) ?? 0
    assert.equal(checked + (counts.get(429) ?? 0), ATTEMPTS, `only 401 and 429: ${JSON.stringify([...counts])}`)
    assert.ok(checked <= LOCKOUT_THRESHOLD, `${checked} credentials were checked (threshold ${LOCKOUT_THRESHOLD})`)
    assert.ok(checked >= 1, 'some attempts were checked')
    // Both instances now refuse the address; another address is not affected.
    for (const base of bases) {
      const res = await fetch(`${base}/v1/account`, { headers: { 'x-forwarded-for': address, 'x-service-user-id': 'usr_nobody', 'x-service-api-key': 'sk_live_wrong' } })
      assert.equal(res.status, 429)
      assert.ok(Number(res.headers.get('retry-after')) > 0)
      assert.equal(typeof ((await res.json()) as { detail: unknown }).detail, 'string')
    }
    const other = freshAddress('api')
    try {
      const res = await fetch(`${bases[1]}/v1/account`, { headers: { 'x-forwarded-for': other.address, 'x-service-user-id': 'usr_nobody', 'x-service-api-key': 'sk_live_wrong' } })
      assert.equal(res.status, 401)
    } finally {
      await other.forget()
    }
  } finally {
    await forget()
  }
})

test(`${ATTEMPTS} parallel bad operator tokens over two instances: at most ${LOCKOUT_THRESHOLD} are compared; unlock lifts it`, { skip, timeout: 120_000 }, async () => {
  const { address, forget } = freshAddress('admin')
  await forget()
  try {
    const counts = await storm('/admin/v1/config', { 'x-forwarded-for': address, authorization: 'Bearer not-the-operator-token' })
    const checked = counts.get(401) ?? 0
    assert.equal(checked + (counts.get(429) ?? 0), ATTEMPTS, `only 401 and 429: ${JSON.stringify([...counts])}`)
    assert.ok(checked <= LOCKOUT_THRESHOLD, `${checked} tokens were compared (threshold ${LOCKOUT_THRESHOLD})`)
    // Locked: even the right token is refused, on either instance.
    const right = { 'x-forwarded-for': address, authorization: `Bearer ${ADMIN}` }
    for (const base of bases) assert.equal((await fetch(`${base}/admin/v1/config`, { headers: right })).status, 429)
    // An operator elsewhere lifts it (on the other instance): the right token works again from the address.
    const unlocked = await fetch(`${bases[0]}/admin/v1/unlock`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.77' },
      body: JSON.stringify({ address }),
    })
    assert.equal(unlocked.status, 200)
    assert.deepEqual(await unlocked.json(), { address, lifted: ['admin'] })
    assert.equal((await fetch(`${bases[1]}/admin/v1/config`, { headers: right })).status, 200)
  } finally {
    await forget()
  }
})
