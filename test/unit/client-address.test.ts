import assert from 'node:assert/strict'
import { test } from 'node:test'
import { canonicalAddress, parseCidr, sourceInCidr, sourceOf, type Cidr } from '../../src/domain/traffic-source.ts'
import { decideClientAddress } from '../../src/http/plugins/client-address.ts'

/**
 * Issue 49, finding 3: a client address taken from a header is made canonical, so that no other
 * spelling of one address is a new source (operations.md section 2, "Invalid traffic").
 */

test('a port, IPv6 brackets and a zone are stripped; IPv6 is written in RFC 5952 form', () => {
  const cases: [string, string][] = [
    ['198.18.5.1:1234', '198.18.5.1'],
    ['198.18.5.1:0', '198.18.5.1'],
    [' 198.18.5.1 ', '198.18.5.1'],
    ['[2001:db8::5]', '2001:db8::5'],
    ['[2001:db8::5]:443', '2001:db8::5'],
    ['[2001:DB8::5%eth0]:443', '2001:db8::5'],
    ['[fe80::1%25en0]', 'fe80::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0005', '2001:db8::5'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    // Unbracketed, the last group is part of the address, never a port.
    ['2001:db8::1:443', '2001:db8::1:443'],
  ]
  for (const [text, canonical] of cases) assert.equal(canonicalAddress(text), canonical, text)
})

test('leading zeros are dropped and read as decimal, never as octal', () => {
  assert.equal(canonicalAddress('198.018.005.001'), '198.18.5.1')
  assert.equal(canonicalAddress('010.000.000.001:80'), '10.0.0.1')
  assert.equal(canonicalAddress('::ffff:198.018.005.001'), '198.18.5.1')
  assert.equal(canonicalAddress('2001:db8::0.0.0.010'), '2001:db8::a')
})

test('an IPv4-mapped address is its IPv4 address, in any spelling', () => {
  for (const text of ['::ffff:198.18.5.1', '::FFFF:c612:501', '[::ffff:198.18.5.1]:8080', '0:0:0:0:0:ffff:198.18.5.1']) {
    assert.equal(canonicalAddress(text), '198.18.5.1', text)
  }
  // IPv4-compatible (::a.b.c.d) is not mapped: it stays the IPv6 address it is.
  assert.equal(canonicalAddress('::198.18.5.1'), '::c612:501')
})

test('anything still not an IP address is null', () => {
  const garbage = [
    '', ' ', 'unknown', 'example.dev', '1.2.3', '1.2.3.4.5', '256.1.1.1', '0x7f.0.0.1', '127.1', '2130706433',
    '198.18.5.1:', '198.18.5.1:65536', '198.18.5.1:http', '198.18.5.1:12:34', '[198.18.5.1]:80', '[2001:db8::5', '2001:db8::5]',
    '[2001:db8::5]:x', '2001:db8::00005', '1::2::3', 'fe80::1%', 'fe80::1%eth 0', '::ffff:0x7f.1', `${'1'.repeat(101)}`,
    '"198.18.5.1"', '198.18.5.1, 198.18.5.2',
  ]
  for (const text of garbage) assert.equal(canonicalAddress(text), null, JSON.stringify(text))
})

test('6to4, NAT64 and Teredo addresses are the source of the IPv4 address inside them', () => {
  const ipv4 = '198.51.100.9' // c633:6409; inverted (Teredo): 39cc:9bf6
  const carriers = [
    '2002:c633:6409::1', // 6to4: bits 16-47
    '2002:c633:6409:ffff:1:2:3:4',
    '[2002:c633:6409::1]:8080',
    '64:ff9b::198.51.100.9', // NAT64, the well-known /96
    '64:ff9b::c633:6409',
    '64:ff9b:1::c633:6409', // NAT64, local use (RFC 8215), the /96 layout
    '64:ff9b:1:abcd::c633:6409',
    '2001:0:4136:e378:8000:63bf:39cc:9bf6', // Teredo: server 65.54.227.120, the client's address inverted
    '2001:0:5ef5:79fd:0:ffff:39cc:9bf6',
  ]
  for (const text of carriers) assert.equal(sourceOf(text), ipv4, text)
  // Nearby addresses that carry none.
  assert.equal(sourceOf('64:ff9b:0:1::c633:6409'), '64:ff9b:0:1::/64', 'outside 64:ff9b::/96')
  assert.equal(sourceOf('2001:db8::c633:6409'), '2001:db8::/64', 'documentation, not Teredo')
  assert.equal(sourceOf('2001:1::c633:6409'), '2001:1::/64', 'outside 2001::/32')
  assert.equal(sourceOf('2003:c633:6409::1'), '2003:c633:6409::/64')
})

test('every spelling of one address is one source; the block list and the lockout keys follow', () => {
  const spellings = ['198.18.5.1', '198.18.5.1:1234', '198.018.005.001', '::ffff:198.18.5.1', '[::ffff:198.18.5.1]:443', '2002:c612:501::9', '64:ff9b::198.18.5.1']
  assert.deepEqual(new Set(spellings.map(sourceOf)), new Set(['198.18.5.1']))
  const range = parseCidr('198.18.0.0/15') as Cidr
  for (const s of spellings) assert.ok(sourceInCidr(sourceOf(s), range), s)
  const six = ['2001:db8:0:1::5', '[2001:db8:0:1::5%eth0]:443', '2001:0db8:0000:0001:0000:0000:0000:0007']
  assert.deepEqual(new Set(six.map(sourceOf)), new Set(['2001:db8:0:1::/64']))
})

test('the request decides its client address: canonical, else the socket (and the fallback is counted)', () => {
  let fallbacks = 0
  const count = () => fallbacks++
  assert.equal(decideClientAddress('198.18.5.1:1234', '10.0.0.2', count), '198.18.5.1')
  assert.equal(decideClientAddress('[2001:db8::5%eth0]:1', '10.0.0.2', count), '2001:db8::5')
  assert.equal(fallbacks, 0)
  assert.equal(decideClientAddress('unknown', '::ffff:10.0.0.2', count), '10.0.0.2', 'the socket, canonical')
  assert.equal(decideClientAddress('1.2.3', '10.0.0.2', count), '10.0.0.2')
  assert.equal(decideClientAddress('x', undefined, count), 'unknown', 'a socket already gone')
  assert.equal(decideClientAddress(undefined, undefined, count), 'unknown')
  assert.equal(fallbacks, 4)
})
