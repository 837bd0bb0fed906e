import assert from 'node:assert/strict'
import { test } from 'node:test'
import { formatCidr, parseCidr, prefix48Of, sourceBytes, sourceFromBytes, sourceInCidr, sourceOf, type Cidr } from '../../src/domain/traffic-source.ts'
import { BlockList, boundKeysOf, SourceBudget, type SourceLimits, type SourceUse } from '../../src/domain/invalid-traffic.ts'
import { SourceTally } from '../../src/serving/source-tally.ts'

const cidr = (text: string): Cidr => {
  const parsed = parseCidr(text)
  assert.ok(!('error' in parsed), `${text} parses`)
  return parsed
}

test('a source is an IPv4 address or an IPv6 /64, written canonically', () => {
  assert.equal(sourceOf('203.0.113.7'), '203.0.113.7')
  assert.equal(sourceOf('::ffff:203.0.113.7'), '203.0.113.7', 'an IPv4-mapped address is its IPv4 source')
  assert.equal(sourceOf('2001:DB8:0:1:aaaa:bbbb:cccc:dddd'), '2001:db8:0:1::/64')
  assert.equal(sourceOf('2001:db8:0:1::1'), sourceOf('2001:db8:0:1:ffff:ffff:ffff:ffff'), 'one /64, one source')
  assert.notEqual(sourceOf('2001:db8:0:1::1'), sourceOf('2001:db8:0:2::1'))
  assert.equal(sourceOf('fe80::1%eth0'), 'fe80::/64')
  assert.equal(sourceOf('::1'), '::/64')
  for (const s of ['203.0.113.7', '2001:db8:0:1::/64', '::/64', '2001:db8:1:2::/64']) assert.equal(sourceFromBytes(sourceBytes(s)!), s)
  assert.equal(sourceBytes('not an address'), null)
})

test('block-list ranges: canonical, host bits clear, IPv6 no narrower than a /64', () => {
  assert.equal(formatCidr(cidr('10.0.0.0/8')), '10.0.0.0/8')
  assert.equal(formatCidr(cidr('198.51.100.9')), '198.51.100.9/32')
  assert.equal(formatCidr(cidr('2001:0db8::/32')), '2001:db8::/32')
  assert.equal(formatCidr(cidr('2001:db8:1:2::')), '2001:db8:1:2::/64')
  assert.deepEqual(parseCidr('10.0.0.1/8'), { error: 'host_bits_set' })
  assert.deepEqual(parseCidr('2001:db8::/96'), { error: 'prefix_too_long' })
  assert.deepEqual(parseCidr('0.0.0.0/0'), { error: 'prefix_too_short' }, 'a /0 would stop all billing')
  assert.deepEqual(parseCidr('::/8'), { error: 'prefix_too_short' })
  for (const bad of ['10.0.0.0/33', '10.0.0/8', 'example.dev', '10.0.0.0/8/8', '::ffff:1.2.3.4/120', '']) assert.deepEqual(parseCidr(bad), { error: 'invalid_format' }, bad)
  assert.ok(sourceInCidr('10.1.2.3', cidr('10.0.0.0/8')))
  assert.ok(!sourceInCidr('11.1.2.3', cidr('10.0.0.0/8')))
  assert.ok(sourceInCidr('2001:db8:1:2::/64', cidr('2001:db8:1::/48')))
  assert.ok(!sourceInCidr('2001:db8:2:2::/64', cidr('2001:db8:1::/48')))
  assert.ok(!sourceInCidr('10.1.2.3', cidr('2001:db8::/32')), 'families never match')
  assert.ok(sourceInCidr('10.255.0.1', cidr('10.0.0.0/8')))
})

test('the block list blocks a source in any of its ranges, or a viewer by key', () => {
  const blocks = new BlockList([
    { kind: 'cidr', value: '203.0.113.0/24' },
    { kind: 'cidr', value: '2001:db8:5::/48' },
    { kind: 'viewer', value: 'vk_blocked' },
    { kind: 'cidr', value: 'garbage' },
  ])
  assert.equal(blocks.size, 3, 'an entry that does not parse is ignored')
  assert.ok(blocks.blocks('203.0.113.9', 'anyone'))
  assert.ok(blocks.blocks('2001:db8:5:77::/64', 'anyone'))
  assert.ok(!blocks.blocks('198.51.100.1', 'anyone'))
  assert.ok(blocks.blocks('198.51.100.1', 'vk_blocked'))
  assert.ok(blocks.blocks(null, 'vk_blocked'))
  assert.ok(!blocks.blocks(null, 'anyone'))
})

/** Bounds of a /48 that never bind. */
const WIDE: SourceLimits = { maxViewersPerDay: 1e9, maxBillablePerHour: 1e9, maxViewersPer48PerDay: 1e9, maxBillablePer48PerHour: 1e9 }

test('a source budget admits the first viewers of the day and the units of the hour, in arrival order', () => {
  const use = new Map<string, SourceUse>([['s', { viewers: 2, knownViewers: new Set(['old']), billedThisHour: 5 }]])
  const budget = new SourceBudget({ ...WIDE, maxViewersPerDay: 3, maxBillablePerHour: 8 }, use)
  const bill = (viewer: string) => {
    if (!budget.admits('s', viewer)) return false
    budget.take('s', viewer)
    return true
  }
  assert.equal(bill('old'), true, 'a viewer already counted today')
  assert.equal(bill('new-1'), true, 'the third viewer of the day')
  assert.equal(bill('new-2'), false, 'a fourth viewer')
  assert.equal(bill('new-1'), true, 'the eighth unit of the hour')
  assert.equal(bill('old'), false, 'the hour is full')
  assert.equal(budget.admits(null, 'x'), true, 'an id sealed before sources were is not bounded')
  assert.equal(budget.admits('other', 'x'), true, 'another source has bounds of its own')
})

test('an IPv6 source lies in its /48; an IPv4 source in none', () => {
  assert.equal(prefix48Of('2001:db8:1:2::/64'), '2001:db8:1::/48')
  assert.equal(prefix48Of(sourceOf('2001:DB8:0001:ffff:1:2:3:4')), '2001:db8:1::/48')
  assert.equal(prefix48Of(sourceOf('2001:db8:1:ffff::1')), prefix48Of(sourceOf('2001:db8:1:0::1')), 'one /48 holds 65,536 /64s')
  assert.notEqual(prefix48Of('2001:db8:1:2::/64'), prefix48Of('2001:db8:2:2::/64'))
  assert.equal(prefix48Of('::/64'), '::/48')
  assert.equal(prefix48Of('fe80::/64'), 'fe80::/48')
  assert.equal(prefix48Of('203.0.113.7'), null)
  assert.equal(prefix48Of(sourceOf('2002:cb00:7107::1')), null, 'a 6to4 address is its IPv4 source')
  assert.equal(prefix48Of('not an address'), null)
  assert.deepEqual(boundKeysOf('2001:db8:1:2::/64'), ['2001:db8:1:2::/64', '2001:db8:1::/48'])
  assert.deepEqual(boundKeysOf('203.0.113.7'), ['203.0.113.7'])
})

test('a source budget admits a unit of an IPv6 source only within the bounds of its /64 and of its /48, and takes from both', () => {
  const use = new Map<string, SourceUse>([
    ['2001:db8:9::/48', { viewers: 3, knownViewers: new Set(['known']), billedThisHour: 4 }],
    ['2001:db8:9:1::/64', { viewers: 1, knownViewers: new Set(['known']), billedThisHour: 1 }],
  ])
  const budget = new SourceBudget({ maxViewersPerDay: 3, maxBillablePerHour: 5, maxViewersPer48PerDay: 5, maxBillablePer48PerHour: 9 }, use)
  const bill = (source: string, viewer: string) => {
    if (!budget.admits(source, viewer)) return false
    budget.take(source, viewer)
    return true
  }
  // The /48 has room for 2 more viewers and 5 more units; each /64 for 3 viewers and 5 units (the first 2 and 4 more).
  assert.equal(bill('2001:db8:9:1::/64', 'a'), true, 'the /48\'s fourth viewer')
  assert.equal(bill('2001:db8:9:2::/64', 'b'), true, 'the /48\'s fifth viewer, from another /64')
  assert.equal(bill('2001:db8:9:3::/64', 'c'), false, 'a sixth viewer of the /48, though its /64 is new')
  assert.equal(bill('2001:db8:9:3::/64', 'known'), true, 'a viewer the /48 counted today already')
  assert.equal(bill('2001:db8:9:2::/64', 'b'), true)
  assert.equal(bill('2001:db8:9:1::/64', 'a'), true, 'the /48\'s ninth unit of the hour')
  assert.equal(bill('2001:db8:9:4::/64', 'a'), false, 'the /48\'s hour is full, though this /64 billed nothing')
  assert.equal(bill('2001:db8:8:1::/64', 'z'), true, 'another /48 has bounds of its own')
  assert.equal(bill('203.0.113.7', 'z'), true, 'an IPv4 source has no /48')
  // The /64's own bounds still hold inside a /48 with room.
  const roomy = new SourceBudget({ maxViewersPerDay: 2, maxBillablePerHour: 3, maxViewersPer48PerDay: 100, maxBillablePer48PerHour: 100 }, new Map())
  const seq = [['p', 'v1'], ['p', 'v2'], ['p', 'v3'], ['p', 'v1'], ['p', 'v2'], ['q', 'v3']].map(([n, v]) => {
    const source = n === 'p' ? '2001:db8:5:1::/64' : '2001:db8:5:2::/64'
    const ok = roomy.admits(source, v!)
    if (ok) roomy.take(source, v!)
    return ok
  })
  assert.deepEqual(seq, [true, true, false, true, false, true])
})

test('the tally remembers what an instance billed and learns the store\'s counts, per UTC day and hour', () => {
  const tally = new SourceTally()
  const t0 = Date.UTC(2026, 10, 2, 9, 30)
  tally.recordUnit('s', 'v1', t0)
  tally.recordUnit('s', 'v1', t0)
  tally.recordUnit('s', 'v2', t0)
  // Known viewers as listed (the first held as is, later ones in a Set) and as asked about.
  const known = (u: ReturnType<SourceTally['use']>) => u && { viewers: u.viewers, knownViewers: [...u.knownViewers], billedThisHour: u.billedThisHour }
  assert.deepEqual(known(tally.use('s', t0)), { viewers: 2, knownViewers: ['v1', 'v2'], billedThisHour: 3 })
  tally.recordUnit('one', 'only', t0)
  assert.deepEqual(known(tally.use('one', t0)), { viewers: 1, knownViewers: ['only'], billedThisHour: 1 })
  assert.deepEqual(['only', 'other'].map((v) => tally.use('one', t0)!.knownViewers.has(v)), [true, false])
  tally.learn(new Map([['s', { viewers: 7, knownViewers: new Set(['v9']), billedThisHour: 2 }]]), t0)
  assert.deepEqual(known(tally.use('s', t0)), { viewers: 7, knownViewers: ['v1', 'v2', 'v9'], billedThisHour: 3 })
  assert.deepEqual(['v1', 'v2', 'v9', 'v3'].map((v) => tally.use('s', t0)!.knownViewers.has(v)), [true, true, true, false])
  assert.equal(tally.use('s', t0 + 3_600_000)?.billedThisHour, 0, 'a new hour')
  assert.equal(tally.use('s', Date.UTC(2026, 10, 3, 0, 1)), undefined, 'a new day')
  assert.equal(tally.use('unknown', t0), undefined)
})
