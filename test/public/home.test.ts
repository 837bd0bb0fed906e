import assert from 'node:assert/strict'
import { test } from 'node:test'
import { freshIp, useService } from '../helpers/api.ts'

/**
 * The home page `/` (issue 35): 200 HTML with the security headers of every
 * page, no cookie, one <h1>, a <title>, the example line drawn by the preview
 * page's components, and the ways in; cacheable with an ETag. The public
 * pages' header leads back to it and into the portal.
 */
const h = useService()

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.baseUrl}${path}`, { headers: { 'x-forwarded-for': freshIp(), ...headers } })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

test('/ answers 200 HTML with the security headers and no cookie', async () => {
  const res = await get('/')
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type')!, /^text\/html; charset=utf-8/)
  assert.equal(res.headers.getSetCookie().length, 0, 'no cookie before sign-in')
  const csp = res.headers.get('content-security-policy')!
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) {
    assert.ok(csp.includes(directive), `CSP has ${directive}: ${csp}`)
  }
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer')
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
  assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN')
  assert.equal(res.headers.get('cache-control'), 'public, max-age=60')
  assert.match(res.headers.get('etag')!, /^"[\w-]{22}"$/)

  // Revalidation: the same page, 304 with no body.
  const again = await get('/', { 'if-none-match': res.headers.get('etag')! })
  assert.equal(again.status, 304)
  assert.equal(again.text, '')
})

test('/ says what the product is, shows the line as both tools draw it, and links every way in', async () => {
  const { text } = await get('/')
  assert.equal(text.match(/<h1[\s>]/g)?.length, 1)
  assert.match(text, /<title>Advertise in developers' AI coding tools · Thinking-line ads<\/title>/)
  // Nothing of another origin: every src and href is a path of this service.
  for (const [, url] of text.matchAll(/\s(?:src|href)="([^"]*)"/g)) assert.match(url!, /^(\/(?!\/)|#|data:)/, `${url} is not this service's`)
  assert.doesNotMatch(text, /<script>|style="/, 'no inline script or style (the CSP forbids them)')
  // The surfaces of the preview page (pages/ad-surfaces.tsx), with their stylesheet.
  // Disclosed as an ad, brand first, exactly as thinking-line prints it and the editor's status bar item says it (issue 51).
  assert.match(text, /<div class="term dark">[\s\S]*<p class="status"><span class="ad">Ad · Acme CI · Ship green builds with Acme CI<\/span><\/p>/)
  assert.match(text, /<div class="editor">[\s\S]*<p class="statusbar">[\s\S]*<span class="ad">Ad · Acme CI · Ship green builds with Acme CI<\/span>/)
  assert.doesNotMatch(text, /Ship green builds with Acme CI…/, 'no client adds an ellipsis to a line that fits')
  assert.match(text, /<link rel="stylesheet" href="\/assets\/ad-surfaces.css"\/>/)
  // What it is, the auction and billing.
  for (const claim of [/blocks of 1,000 impressions of ten seconds each/, /pay only for the views delivered, billed after delivery/, /live auction ranked by price/, /CSV export/, /shareable report/]) {
    assert.match(text, claim)
  }
  for (const href of ['/portal/signup', '/portal/login', '/docs', '/status', '/leaderboard']) assert.match(text, new RegExp(`href="${href}"`), href)
  // The brand leads home.
  assert.match(text, /<a class="brand" href="\/">/)
  const css = await get('/assets/ad-surfaces.css')
  assert.equal(css.status, 200)
  assert.match(css.headers.get('content-type')!, /^text\/css/)
  assert.match(css.text, /\.term \.status\{/)
})

test('the public pages lead home and into the portal; the portal leads home; the console does not', async () => {
  for (const path of ['/status', '/leaderboard', '/docs']) {
    const { status, text } = await get(path)
    assert.equal(status, 200, path)
    assert.match(text, /<a class="brand" href="\/">/, `${path}: the brand leads home`)
    assert.match(text, /<nav aria-label="Account" class="account-links"><a href="\/portal\/login">Sign in<\/a><a href="\/portal\/signup">Sign up<\/a><\/nav>/, path)
  }
  for (const path of ['/portal/login', '/portal/signup']) {
    const { status, text } = await get(path)
    assert.equal(status, 200, path)
    assert.match(text, /<a class="brand" href="\/">/, `${path}: the brand leads home`)
  }
  const ops = await get('/ops/login')
  assert.equal(ops.status, 200)
  assert.match(ops.text, /<a class="brand" href="\/ops\/login">/)
})
