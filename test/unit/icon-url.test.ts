import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkIconUrl } from '../../src/domain/icon-url.ts'
import { checkSvgIcon } from '../../src/domain/svg-icon.ts'

// The icon rule (src/domain/icon-url.ts, src/domain/svg-icon.ts): data URIs decoded and checked (issue 34).

const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='
const svgUri = (svg: string) => `data:image/svg+xml,${encodeURIComponent(svg)}`
const svgBase64 = (svg: string) => `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`
const wrap = (inner: string, attrs = '') => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"${attrs}>${inner}</svg>`

/** A clean icon as design tools export it after an optimizer pass. */
const ICON =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="16" height="16" viewBox="0 0 16 16" role="img" aria-label="Acme">\n' +
  '  <title>Acme &amp; Co</title>\n' +
  '  <!-- the mark -->\n' +
  '  <defs>\n' +
  '    <linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f80"/><stop offset="1" style="stop-color: rgb(255, 0, 0); stop-opacity: .5"/></linearGradient>\n' +
  '    <linearGradient id="g2" xlink:href="#g" gradientTransform="rotate(45)"/>\n' +
  '    <clipPath id="c"><circle cx="8" cy="8" r="8"/></clipPath>\n' +
  '  </defs>\n' +
  '  <g clip-path="url(#c)" transform="translate(1 1) scale(.9)">\n' +
  '    <rect width="16" height="16" fill="url(\'#g\')"/>\n' +
  '    <path d="M2 8h12M8 2v12" stroke="#fff" stroke-width="2" stroke-linecap="round" fill="none"/>\n' +
  '    <text x="8" y="12" font-family="\'Open Sans\', sans-serif" font-size="6" text-anchor="middle">A&#233;👩‍👩‍👧‍👦</text>\n' +
  '  </g>\n' +
  '</svg>\n'

test('raster data URIs: the declared format must be what the bytes are', () => {
  assert.equal(checkIconUrl(PNG), null)
  assert.equal(checkIconUrl('data:image/png;base64,iVBORw0KGgo='), null)
  assert.equal(checkIconUrl('DATA:IMAGE/PNG;BASE64,iVBORw0KGgo='), null)
  assert.equal(checkIconUrl('data:image/gif;base64,R0lGODlhAQABAAAAACw='), null)
  assert.equal(checkIconUrl('data:image/jpeg;base64,/9j/4AAQ'), null)
  assert.equal(checkIconUrl(`data:image/webp;base64,${Buffer.from('RIFF\0\0\0\0WEBPVP8 ').toString('base64')}`), null)
  assert.equal(checkIconUrl('data:image/png,%89PNG%0D%0A%1A%0A'), null, 'percent-encoded bytes')
  for (const uri of [
    `data:image/png;base64,${Buffer.from(wrap('<script>alert(1)</script>')).toString('base64')}`, // an SVG posing as a PNG
    'data:image/png;base64,iVBORw0KGgo', // not base64 (length)
    'data:image/png;base64,iVBORw0K Ggo=', // white space
    'data:image/png;base64,iVBORw0K%0AGgo=',
    'data:image/png;name=x.png;base64,iVBORw0KGgo=', // an unknown parameter
    'data:image/bmp;base64,Qk0=',
    'data:text/html,<script>',
    'data:,hello',
    'data:image/png;base64',
    'data:image/svg+xml,%3Csvg%3E%25%ZZ',
  ]) {
    assert.deepEqual(checkIconUrl(uri), { reason: 'invalid_icon_url' }, uri)
  }
})

test('an SVG icon of shapes, gradients, clips and text passes, percent-encoded or base64', () => {
  assert.equal(checkSvgIcon(ICON), null)
  assert.equal(checkIconUrl(svgUri(ICON)), null)
  assert.equal(checkIconUrl(svgBase64(ICON)), null)
  assert.equal(checkIconUrl(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(wrap('<circle r="4"/>'))}`), null)
  assert.equal(checkIconUrl(`data:image/svg+xml;charset=UTF-8;base64,${Buffer.from(wrap('<text>&lt;script&gt;</text>')).toString('base64')}`), null, '<script> as text is text')
})

test('an SVG with script, event handlers, javascript: or external references is unsafe_svg', () => {
  const cases: [string, string][] = [
    [wrap('<script>alert(1)</script>'), 'element <script>'],
    [wrap('<script xlink:href="https://evil.example/x.js"/>'), 'element <script>'],
    [wrap('<SCRIPT>alert(1)</SCRIPT>'), 'element <SCRIPT>'],
    [wrap('<circle r="4"/>', ' onload="alert(1)"'), 'event attribute onload'],
    [wrap('<circle r="4" ONCLICK="alert(1)"/>'), 'event attribute ONCLICK'],
    [wrap('<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>'), 'element <foreignObject>'],
    [wrap('<a href="javascript:alert(1)"><circle r="4"/></a>'), 'element <a>'],
    [wrap('<linearGradient id="g" href="javascript:alert(1)"/>'), 'javascript: URL'],
    [wrap('<linearGradient id="g" href="&#x6A;avascript:alert(1)"/>'), 'javascript: URL'],
    [wrap('<linearGradient id="g" href="java&#9;script:alert(1)"/>'), 'javascript: URL'],
    [wrap('<linearGradient id="g" xlink:href="https://evil.example/g.svg#g"/>', ' xmlns:xlink="http://www.w3.org/1999/xlink"'), 'external reference'],
    [wrap('<linearGradient id="g" href="g.svg#g"/>'), 'external reference'],
    [wrap('<linearGradient id="g" href="//evil.example/#g"/>'), 'external reference'],
    [wrap('<rect width="4" height="4" fill="url(https://evil.example/p.svg#p)"/>'), 'external reference'],
    [wrap('<rect width="4" height="4" style="fill: url(\'//evil.example/t\')"/>'), 'external reference'],
    [wrap('<rect width="4" height="4" style="fill: u\\72l(//evil.example/t)"/>'), 'CSS escape'],
    [wrap('<rect width="4" height="4" style="mask: image-set(\'https://evil.example/m.png\' 1x)"/>'), 'CSS function image-set()'],
    [wrap('<rect width="4" height="4" style="background-image: url(#x)"/>'), 'CSS property background-image'],
    [wrap('<rect width="4" height="4" style="fill: red; @import \'x.css\'"/>'), 'CSS property @import \'x.css\''],
    [wrap('<rect width="4" height="4" fill="red" style="fill:red/**/"/>'), 'CSS comment'],
    [wrap('<style>@import url(https://evil.example/x.css);</style>'), 'element <style>'],
    [wrap('<image href="https://evil.example/i.png" width="4" height="4"/>'), 'element <image>'],
    [wrap('<use href="#a"/>'), 'element <use>'],
    [wrap('<set attributeName="href" to="javascript:alert(1)"/>'), 'element <set>'],
    [wrap('<animate attributeName="x" values="1"/>'), 'element <animate>'],
    [wrap('<iframe src="https://evil.example/"/>'), 'element <iframe>'],
    [wrap('<circle r="4" data-x="1"/>'), 'attribute data-x'],
    [wrap('<g xmlns="http://www.w3.org/1999/xhtml"><circle r="1"/></g>'), 'namespace http://www.w3.org/1999/xhtml'],
    [wrap('<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script>'), 'element <h:script>'],
    [`<!DOCTYPE svg [<!ENTITY x SYSTEM "https://evil.example/">]>${wrap('<text>&x;</text>')}`, 'DOCTYPE'],
    [wrap('<text>&x;</text>'), 'entity reference'],
    [wrap('<text><![CDATA[<script>alert(1)</script>]]></text>'), 'CDATA section'],
    [`<?xml-stylesheet href="https://evil.example/x.css"?>${wrap('')}`, 'processing instruction'],
    [`<?xml version="1.0" encoding="UTF-16"?>${wrap('')}`, 'processing instruction'],
    ['<html><script>alert(1)</script></html>', 'root element <html>'],
    [`${wrap('')}<svg xmlns="http://www.w3.org/2000/svg"/>`, 'a second root element'],
    [`${wrap('')}trailing`, 'text outside the root element'],
    [wrap('<g>'), 'malformed XML'],
    [wrap('<circle r=4/>'), 'malformed XML'],
    [wrap('<circle r="4" r="5"/>'), 'malformed XML'],
    [wrap('<circle r="4"cx="1"/>'), 'malformed XML'],
    [wrap('<text>a & b</text>'), 'malformed XML'],
    [wrap('<g>'.repeat(40) + '</g>'.repeat(40)), 'elements nested too deep'],
    // An HTML parser ends this comment at once and runs the script; XML reads it all as a comment.
    [wrap('<!--><script>alert(1)</script>-->'), 'malformed XML'],
    [wrap('<!-- a --!><script>alert(1)</script>-->'), 'malformed XML'],
  ]
  for (const [svg, found] of cases) {
    assert.deepEqual(checkSvgIcon(svg), { reason: 'unsafe_svg', found }, svg)
    assert.deepEqual(checkIconUrl(svgBase64(svg)), { reason: 'unsafe_svg', found }, `base64: ${svg}`)
  }
  assert.deepEqual(checkIconUrl(svgUri(wrap('<script>alert(1)</script>'))), { reason: 'unsafe_svg', found: 'element <script>' })
  assert.deepEqual(checkIconUrl(`data:image/svg+xml,${encodeURIComponent(wrap('<circle r="4"/>'))}#<script>`), { reason: 'invalid_icon_url' }, 'a raw # would cut the data')
})

test('the SVG text is held to the character rules of ad text', () => {
  assert.deepEqual(checkIconUrl(svgUri(wrap('<text>Right-to-left \u202Etrick</text>'))), { reason: 'control_characters' })
  assert.deepEqual(checkIconUrl(svgUri(wrap('<text>x&#x202E;y</text>'))), { reason: 'control_characters' }, 'through a character reference')
  assert.deepEqual(checkIconUrl(svgUri(wrap('<text>bell\u0007</text>'))), { reason: 'control_characters' })
  assert.deepEqual(checkIconUrl(svgUri(wrap('<text>x&#7;</text>'))), { reason: 'unsafe_svg', found: 'character reference' })
  assert.deepEqual(checkIconUrl(svgUri(wrap(`<text>a${'\u0301'.repeat(5)}</text>`))), { reason: 'too_many_combining_marks' })
  assert.deepEqual(checkIconUrl(svgUri(wrap('<title>t</title>', ` aria-label="a${'&#x301;'.repeat(9)}"`))), { reason: 'too_many_combining_marks' })
  assert.deepEqual(checkIconUrl(`data:image/svg+xml,${encodeURIComponent(wrap('<text>'))}%FF%FE${encodeURIComponent('</text>')}`), { reason: 'invalid_unicode' })
  assert.equal(checkIconUrl(svgUri(wrap('<text>Tiếng Việt 🇫🇷 \t\r\n</text>'))), null)
})

test('the icon URL is at most 12,000 characters and 16 KiB of UTF-8; https URLs keep their rule', () => {
  assert.deepEqual(checkIconUrl(`data:image/png;base64,${'A'.repeat(12_000)}`), { reason: 'too_long', max_length: 12_000, max_bytes: 16_384 })
  assert.deepEqual(checkIconUrl(`https://a.dev/${'é'.repeat(8_200)}`), { reason: 'too_long', max_length: 12_000, max_bytes: 16_384 })
  assert.equal(checkIconUrl('https://a.dev/i.png#frag'), null)
  assert.deepEqual(checkIconUrl('https://a.dev/i .png'), { reason: 'invalid_icon_url' })
  assert.deepEqual(checkIconUrl('javascript:alert(1)'), { reason: 'invalid_icon_url' })
})
