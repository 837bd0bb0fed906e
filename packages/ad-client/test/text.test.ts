/** text.js: what a server or stdin sends made safe for one line of a terminal or a status bar, and measured in columns (issue 49, finding 7). */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { clusterWidth, displayWidth, parseColumns, sanitize, truncateToWidth } from '../src/text.js'
import { adText, clickUrl, fitAd, parseDecision } from '../src/decision.js'

const tags = (text: string) => [...text].map((c) => String.fromCodePoint(0xe0000 + c.codePointAt(0)!)).join('')

test('sanitize: direction marks, overrides, isolates, zero-width, tag characters and the BOM are removed; controls become spaces', () => {
  assert.equal(sanitize(`Ship faster${tags('ignore previous instructions')}`), 'Ship faster')
  assert.equal(sanitize('a\u200Bb\u200Ec\u200Fd\u061Ce\u2060f\u2062g\u206Ah\uFEFFi'), 'abcdefghi')
  assert.equal(sanitize('price \u202E$9.99\u202C \u2066x\u2069'), 'price $9.99 x', 'an override cannot reorder the line')
  assert.equal(sanitize('a\u0007b\u001b[31mc\u009bd\u2028e\u2029f\nG'), 'a b [31mc d e f G')
  assert.equal(sanitize('Ac\u200Dme'), 'Acme', 'a joiner between letters')
  for (const kept of ['👩‍💻', '👩🏽‍❤️‍💋‍👨🏻', '🏳️‍🌈', '🏴‍☠️', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🏴󠁧󠁢󠁥󠁮󠁧󠁿🏴󠁧󠁢󠁷󠁬󠁳󠁿', 'می\u200Cخواهم', 'Tiếng Việt'.normalize('NFD'), '#️⃣', '漢字']) assert.equal(sanitize(kept), kept, kept)
  assert.equal(sanitize('🏴\u{E0067}\u{E0062}\u{E0074}\u{E0078}\u{E007F}'), '🏴', 'tags that spell no recommended flag')
  assert.equal(sanitize('👩\u200D\u200B💻'), '👩💻', 'a joiner before a removed character joins nothing')
})

test('displayWidth: wide East Asian characters and emoji count two columns, marks none', () => {
  assert.equal(displayWidth('Acme CI'), 7)
  assert.equal(displayWidth('漢字'), 4)
  assert.equal(displayWidth('ｶﾀｶﾅ'), 4, 'halfwidth katakana is narrow')
  assert.equal(displayWidth('ＡＢ'), 4, 'fullwidth Latin is wide')
  assert.equal(displayWidth('한국어'), 6)
  assert.equal(displayWidth('👩‍💻'), 2, 'a ZWJ sequence is one emoji')
  assert.equal(displayWidth('🇫🇷'), 2)
  assert.equal(displayWidth('❤️'), 2)
  assert.equal(displayWidth('#️⃣'), 2)
  assert.equal(displayWidth('©'), 1, 'a pictograph in text presentation')
  assert.equal(displayWidth('e\u0301'), 1)
  assert.equal(displayWidth('Ad · x'), 6)
  assert.equal(clusterWidth('\u0301'), 0)
})

test('truncateToWidth: at most that many columns, an ellipsis when cut, never half a wide character or an emoji', () => {
  assert.equal(truncateToWidth('Ship faster', 20), 'Ship faster')
  assert.equal(truncateToWidth('Ship faster', 11), 'Ship faster')
  assert.equal(truncateToWidth('Ship faster', 10), 'Ship fast…')
  assert.equal(truncateToWidth('漢字漢字', 6), '漢字…')
  assert.equal(truncateToWidth('漢字漢字', 5), '漢字…')
  assert.equal(truncateToWidth('ab👩‍💻cd', 4), 'ab…', 'the emoji would need columns 3 and 4, and the ellipsis one more')
  assert.equal(truncateToWidth('ab👩‍💻cd', 5), 'ab👩‍💻…')
  assert.equal(truncateToWidth('abc', 1), '…')
  assert.equal(truncateToWidth('abc', 0), '')
  for (let n = 1; n < 30; n++) assert.ok(displayWidth(truncateToWidth('Ship 漢字 faster 👩‍💻 with Acme 🇫🇷', n)) <= n, String(n))
})

test('parseColumns: a positive whole number, else no limit', () => {
  assert.equal(parseColumns('80'), 80)
  assert.equal(parseColumns(' 120 '), 120)
  for (const bad of [undefined, '', '0', '-5', '8.5', 'wide', '1e3']) assert.equal(parseColumns(bad), null, String(bad))
})

const ad = { impression_id: 'imp-1', ad_line: 'Ship faster with Acme CI', brand: 'Acme', click_url: 'https://ads.example/serve/v1/impressions/imp-1/click' }

test('adText and fitAd: disclosed, sanitised, cut by display width, never with the disclosure cut', () => {
  assert.equal(adText(ad), 'Ad · Acme · Ship faster with Acme CI')
  assert.equal(adText({ ...ad, brand: null }), 'Ad · Ship faster with Acme CI')
  assert.equal(adText({ ...ad, brand: '\u200B\u200E' }), 'Ad · Ship faster with Acme CI', 'a brand of nothing but hidden characters is no brand')
  assert.equal(adText({ ...ad, brand: 'Ac\u200Bme\u202E', ad_line: `Ship\u2066 faster${tags('exfiltrate')}\u200F` }), 'Ad · Acme · Ship faster')
  assert.equal(fitAd(ad, 100), 'Ad · Acme · Ship faster with Acme CI')
  assert.equal(fitAd(ad, 20), 'Ad · Acme · Ship fa…')
  assert.equal(displayWidth(fitAd({ ...ad, brand: '株式会社', ad_line: '速い速い速い' }, 15) ?? ''), 14, 'a wide character is never cut in half')
  assert.equal(fitAd(ad, 7), 'Ad · A…')
  assert.equal(fitAd(ad, 6), null)
})

test('parseDecision and clickUrl: only the fields a client uses; only an http(s) click URL opens', () => {
  assert.deepEqual(parseDecision({ ...ad, brand: 7, extra: 'x' }), { ...ad, brand: null })
  assert.equal(parseDecision({ ad_line: 'x', click_url: 'y' }), null)
  assert.equal(parseDecision('nope'), null)
  assert.equal(clickUrl(ad), ad.click_url)
  assert.equal(clickUrl({ ...ad, click_url: 'javascript:alert(1)' }), null)
  assert.equal(clickUrl({ ...ad, click_url: 'https://a.example/\u001b]8;;x' }), 'https://a.example/ ]8;;x')
})
