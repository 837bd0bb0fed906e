import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  PREVIEW_PAGE_CSP,
  escapeHtml,
  renderPreviewGonePage,
  renderPreviewPage,
  type PreviewView,
} from '../../src/http/pages/preview-page.ts'

const PNG_1X1 =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='

function view(overrides: Partial<PreviewView> = {}): PreviewView {
  return {
    adLine: 'Ship faster with Acme CI',
    brand: 'Acme',
    iconUrl: null,
    destinationUrl: 'https://acme.example/landing?utm=ai',
    targetSurface: 'both',
    expiresAt: new Date('2030-01-02T03:04:05.000Z'),
    ...overrides,
  }
}

function srcAttributes(html: string): string[] {
  return [...html.matchAll(/\ssrc\s*=\s*"([^"]*)"/gi)].map((m) => m[1] ?? '')
}

test('escapeHtml escapes markup and quote characters', () => {
  assert.equal(escapeHtml(`<a href="x" title='y'>&</a>`), '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;')
})

test('CSP forbids scripts and external resources', () => {
  assert.equal(
    PREVIEW_PAGE_CSP,
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  )
})

test('user-provided ad line, brand and url are escaped; no <script anywhere', () => {
  const html = renderPreviewPage(
    view({
      adLine: '<script>alert(1)</script> deal',
      brand: '<script>brand()</script>',
      destinationUrl: 'https://x.example/"><script>url()</script>',
    }),
  )
  assert.ok(!/<script/i.test(html))
  // The surfaces are preact (pages/ad-surfaces.tsx), which escapes `<`, `&` and `"` in text (enough: no tag can open).
  assert.ok(html.includes('&lt;script>alert(1)&lt;/script> deal'))
  assert.ok(html.includes('&lt;script>brand()&lt;/script>'))
  assert.ok(html.includes('https://x.example/&quot;&gt;&lt;script&gt;url()&lt;/script&gt;'))
})

test('page has required meta tags, expiry and no-charge note', () => {
  const html = renderPreviewPage(view())
  assert.ok(html.startsWith('<!doctype html>'))
  assert.ok(html.includes('<meta charset="utf-8">'))
  assert.ok(html.includes('<meta name="robots" content="noindex">'))
  assert.ok(html.includes('<meta name="referrer" content="no-referrer">'))
  assert.ok(html.includes('name="viewport"'))
  assert.match(html, /<title>[^<]+<\/title>/)
  assert.ok(html.includes('This link works until 2030-01-02 03:04 UTC.'), 'the expiry in words, not an ISO stamp')
  assert.ok(!/\d{4}-\d\d-\d\dT\d\d:/.test(html))
  assert.match(html, /no impressions, clicks or charges/)
})

test('destination is shown as text, not a link; no external resources', () => {
  const html = renderPreviewPage(view())
  assert.ok(html.includes('Clicks go to: <code>https://acme.example/landing?utm=ai</code>'))
  assert.ok(!/<a[\s>]/i.test(html))
  assert.ok(!/\b(href|ping|action|srcset)\s*=/i.test(html))
  assert.ok(!/<(link|iframe|object|embed|form|base)[\s>]/i.test(html))
  assert.ok(!/url\(/i.test(html))
  assert.ok(!/@import/i.test(html))
})

test('no icon is drawn, whatever icon_url is: neither client shows one; the page says so', () => {
  for (const iconUrl of [PNG_1X1, 'https://cdn.tracker.example/path/icon.png?who=me']) {
    const html = renderPreviewPage(view({ iconUrl }))
    assert.deepEqual(srcAttributes(html), [], iconUrl)
    assert.ok(!html.includes('icon.png') && !html.includes('base64'), iconUrl)
    assert.ok(html.includes('The icon is not shown: the status bar item and the terminal line are text only.'), iconUrl)
  }
  assert.ok(!renderPreviewPage(view()).includes('The icon is not shown'))
})

test('unsupported or malicious icon URIs are not rendered', () => {
  for (const iconUrl of [
    'data:text/html;base64,PHNjcmlwdD4=',
    'javascript:alert(1)',
    'http://insecure.example/icon.png',
    'data:image/png;base64,AAAA" onerror="alert(1)',
  ]) {
    const html = renderPreviewPage(view({ iconUrl }))
    assert.deepEqual(srcAttributes(html), [], iconUrl)
    assert.ok(!/onerror/i.test(html), iconUrl)
  }
})

test('surfaces are rendered as requested, each dark and light, disclosed as the clients show it', () => {
  const terminal = renderPreviewPage(view({ targetSurface: 'terminal' }))
  assert.equal(terminal.match(/<div class="term (dark|light)">/g)?.length, 2)
  assert.ok(!terminal.includes('class="editor'))
  // thinking-line's line (packages/status-line/src/line.js#adText): "Ad", the brand, the line; no ellipsis added.
  assert.equal(terminal.match(/<p class="status"><span class="ad">Ad · Acme · Ship faster with Acme CI<\/span><\/p>/g)?.length, 2)
  assert.ok(!terminal.includes('Ship faster with Acme CI…'))

  const extension = renderPreviewPage(view({ targetSurface: 'extension', iconUrl: PNG_1X1 }))
  assert.ok(extension.includes('class="editor dark"') && extension.includes('class="editor light"'))
  assert.ok(!extension.includes('class="term'))
  // The editor extension's status bar item (operations.md section 9).
  assert.equal(extension.match(/<span class="sb sb-ad"><span class="ad">Ad · Acme · Ship faster with Acme CI<\/span><\/span>/g)?.length, 2)

  const both = renderPreviewPage(view({ targetSurface: 'both' }))
  assert.ok(both.includes('class="term dark"'))
  assert.ok(both.includes('class="editor dark"'))
})

test('without a brand the line is "Ad · {ad_line}"', () => {
  const html = renderPreviewPage(view({ brand: null }))
  assert.ok(html.includes('<span class="ad">Ad · Ship faster with Acme CI</span>'))
  assert.ok(!html.includes('Acme ·'))
})

test('gone page explains each kind and has no scripts or links', () => {
  const expected = { expired: /expired/i, revoked: /revoked/i, not_found: /not found/i } as const
  for (const kind of ['expired', 'revoked', 'not_found'] as const) {
    const html = renderPreviewGonePage(kind)
    assert.ok(html.startsWith('<!doctype html>'))
    assert.match(html, expected[kind])
    assert.match(html, /no longer available/)
    assert.ok(html.includes('<meta name="robots" content="noindex">'))
    assert.ok(!/<script|<a[\s>]|\ssrc=/i.test(html))
  }
})
