import assert from 'node:assert/strict'
import { test } from 'node:test'
import { displayWidth } from '@thinking-line/ad-client/text'
import { fitLine, formatLine, renderPrefix } from '../src/line.js'

const ad = { impression_id: 'imp-1', ad_line: 'Ship faster with Acme CI', brand: 'Acme', click_url: 'https://ads.example/serve/v1/impressions/imp-1/click' }

test('the ad is disclosed: Ad · brand · line, or Ad · line without a brand', () => {
  assert.equal(formatLine({ prefix: '', ad, tmux: false, links: false }), 'Ad · Acme · Ship faster with Acme CI')
  assert.equal(formatLine({ prefix: '', ad: { ...ad, brand: null }, tmux: false, links: false }), 'Ad · Ship faster with Acme CI')
})

test('a prefix comes first, then the separator; without an ad the prefix alone', () => {
  assert.equal(formatLine({ prefix: 'Opus · ~/src', ad, tmux: false, links: false }), 'Opus · ~/src · Ad · Acme · Ship faster with Acme CI')
  assert.equal(formatLine({ prefix: 'Opus', ad: null, tmux: false, links: true }), 'Opus')
  assert.equal(formatLine({ prefix: '', ad: null, tmux: true, links: true }), '')
})

test('the ad is an OSC 8 hyperlink to the click URL, unless --no-links or --tmux', () => {
  const line = formatLine({ prefix: 'p', ad, tmux: false, links: true })
  assert.equal(line, `p · \u001b]8;;${ad.click_url}\u001b\\Ad · Acme · Ship faster with Acme CI\u001b]8;;\u001b\\`)
  assert.ok(!formatLine({ prefix: 'p', ad, tmux: true, links: true }).includes('\u001b'))
  assert.ok(!formatLine({ prefix: 'p', ad, tmux: false, links: false }).includes('\u001b'))
})

test("--tmux doubles tmux's # in the prefix and the ad", () => {
  assert.equal(formatLine({ prefix: 'PR #12', ad: { ...ad, ad_line: 'C# tools #1' }, tmux: true, links: true }), 'PR ##12 · Ad · Acme · C## tools ##1')
})

test('control characters never reach the terminal (the ad is plain text, the prefix may come from stdin)', () => {
  const line = formatLine({ prefix: 'a\u001b[31mb', ad: { ...ad, brand: 'X\u0007', ad_line: 'y\u009bz', click_url: 'https://x/\u001b]' }, tmux: false, links: true })
  // eslint-disable-next-line no-control-regex
  assert.equal(line.replace(/\u001b\]8;;[^\u001b]*\u001b\\/g, ''), 'a [31mb · Ad · X  · y z')
})

test('the prefix template takes model.display_name and workspace.current_dir from the stdin JSON', () => {
  const input = { model: { display_name: 'Opus' }, workspace: { current_dir: '/home/dev/app' }, session_id: 'secret' }
  assert.equal(renderPrefix('{model.display_name} in {workspace.current_dir}', input), 'Opus in /home/dev/app')
  assert.equal(renderPrefix('{model.display_name} {session_id}', input), 'Opus {session_id}')
  assert.equal(renderPrefix('[{model.display_name}]', null), '[]')
  assert.equal(renderPrefix('[{model.display_name}]', { model: { display_name: { x: 1 } } }), '[]')
})

const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('')

test('formatLine with maxColumns: the prefix whole, the ad cut to the rest; an ad without room for its disclosure is left out', () => {
  const line = (prefix: string, maxColumns: number | null, extra = {}) => formatLine({ prefix, ad, tmux: false, links: false, maxColumns, ...extra })
  assert.equal(line('Opus', null), 'Opus · Ad · Acme · Ship faster with Acme CI')
  assert.equal(line('Opus', 43), 'Opus · Ad · Acme · Ship faster with Acme CI')
  assert.equal(line('Opus', 30), 'Opus · Ad · Acme · Ship faste…')
  assert.equal(displayWidth(line('Opus', 30)), 30)
  assert.equal(line('', 12), 'Ad · Acme ·…')
  assert.equal(line('Opus', 14), 'Opus · Ad · A…', 'the disclosure, a character and the ellipsis')
  assert.equal(line('Opus', 13), 'Opus', 'no room for the disclosure: the prefix alone')
  assert.equal(line('Opus in ~/src/some/long/path', 10), 'Opus in ~…')
  assert.equal(line('漢字', 16, { ad: { ...ad, brand: '株式会社', ad_line: '速い' } }), '漢字 · Ad · 株…', '15 columns: 株式 and the ellipsis would be 17')
  // tmux draws ## as one #: the line is measured before escaping.
  assert.equal(line('PR #12', 20, { tmux: true }), 'PR ##12 · Ad · Acme…')
  // The hyperlink's escape codes take no columns: the text inside is what was cut.
  assert.equal(line('Opus', 30, { links: true }), `Opus · \u001b]8;;${ad.click_url}\u001b\\Ad · Acme · Ship faste…\u001b]8;;\u001b\\`)
  assert.deepEqual(fitLine('', null, 5), { head: '', ad: null })
})

test('formatLine: what the server sends is stripped of hidden characters before it is printed', () => {
  const hostile = { ...ad, brand: 'Ac\u200Bme\u202E', ad_line: `Ship\u2066 faster${tags('exfiltrate')}\u200F` }
  assert.equal(formatLine({ prefix: '', ad: hostile, tmux: false, links: false }), 'Ad · Acme · Ship faster')
  assert.equal(formatLine({ prefix: '', ad: { ...ad, brand: '\u200B\u200E' }, tmux: false, links: false }), 'Ad · Ship faster with Acme CI', 'a brand of nothing but hidden characters is no brand')
})
