// Public, presentation-only preview of an ad line. Pure rendering: no I/O
// (the surfaces' stylesheet is read once, when the module loads). Each
// surface the preview covers is drawn dark and light.
//
// The page must not leak that someone looked at it: no scripts, no external
// resources, no clickable destination, no image (no client draws the icon,
// so neither does the preview). The route sends PREVIEW_PAGE_CSP alongside the HTML.

import { readFileSync } from 'node:fs'
import { EditorSurface, ICON_NOTE, TerminalSurface, type SurfaceTheme } from './ad-surfaces.tsx'
import { utc } from './format.ts'
import { renderFragment } from './render.ts'

export interface PreviewView {
  adLine: string
  brand: string | null
  iconUrl: string | null // https URL or data: URI
  destinationUrl: string
  targetSurface: 'extension' | 'terminal' | 'both'
  expiresAt: Date
}

export const PREVIEW_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"'`]/g, (ch) => HTML_ESCAPES[ch] ?? ch)
}


/** The page around the surfaces; the surfaces' own styles are ad-surfaces.css, inlined after these. */
const PAGE_STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1d2129;--muted:#5f6672;--card:#fff;--line:#dde1e6}
@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e6e8eb;--muted:#9aa1ad;--card:#1d2026;--line:#2c3038}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:760px;margin:0 auto;padding:32px 20px 48px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:13px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:28px 0 10px}
h3{font-size:13px;font-weight:600;color:var(--muted);margin:0 0 6px}
.meta{color:var(--muted);font-size:13px;margin:0}
.note{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;font-size:13px;margin:16px 0 0}
.dest{margin:16px 0 0;font-size:14px}
.dest code{word-break:break-all;background:var(--card);border:1px solid var(--line);border-radius:4px;padding:1px 5px}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
`

/** Read once at start-up: the same file the home page links as /assets/ad-surfaces.css (this page's CSP allows inline styles only). */
const STYLE = PAGE_STYLE + readFileSync(new URL('./assets/ad-surfaces.css', import.meta.url), 'utf8')

const THEMES: { theme: SurfaceTheme; label: string }[] = [
  { theme: 'dark', label: 'Dark' },
  { theme: 'light', label: 'Light' },
]

/** One surface in a dark and a light theme, side by side (one above the other on a phone). */
function surfacePair(heading: string, draw: (theme: SurfaceTheme) => string): string {
  const pair = THEMES.map((t) => `<div><h3>${escapeHtml(`${heading}, ${t.label.toLowerCase()}`)}</h3>\n${draw(t.theme)}</div>`).join('\n')
  return `<h2>${escapeHtml(heading)}</h2>\n<div class="surface-pair">\n${pair}\n</div>`
}

function renderTerminal(view: PreviewView): string {
  return surfacePair('Terminal status line', (theme) => renderFragment(TerminalSurface({ view, theme })))
}

function renderExtension(view: PreviewView): string {
  return surfacePair('Editor status bar', (theme) => renderFragment(EditorSurface({ view, theme })))
}

function documentShell(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`
}

export function renderPreviewPage(view: PreviewView): string {
  const sections: string[] = []
  if (view.targetSurface === 'terminal' || view.targetSurface === 'both') sections.push(renderTerminal(view))
  if (view.targetSurface === 'extension' || view.targetSurface === 'both') sections.push(renderExtension(view))

  const body = `<h1>Ad line preview</h1>
<p class="meta">The ad as the coding tools show it, disclosed as an ad. This link works until ${escapeHtml(utc(view.expiresAt, 'its expiry'))}.</p>
<p class="note">This is a preview only. Viewing it creates no impressions, clicks or charges.</p>
<p class="dest">Clicks go to: <code>${escapeHtml(view.destinationUrl)}</code></p>
${sections.join('\n')}
${view.iconUrl ? `<p class="caption">${escapeHtml(ICON_NOTE)}</p>` : ''}`
  return documentShell('Ad line preview', body)
}

const GONE_MESSAGES: Record<'expired' | 'revoked' | 'not_found', { heading: string; text: string }> = {
  expired: { heading: 'This preview has expired', text: 'Preview links are temporary. Ask the advertiser for a new link.' },
  revoked: { heading: 'This preview was revoked', text: 'The advertiser withdrew this preview link.' },
  not_found: { heading: 'Preview not found', text: 'This preview link is not valid. Check that it was copied completely.' },
}

export function renderPreviewGonePage(kind: 'expired' | 'revoked' | 'not_found'): string {
  const msg = GONE_MESSAGES[kind] ?? GONE_MESSAGES.not_found
  const body = `<h1>${escapeHtml(msg.heading)}</h1>
<p class="meta">This ad line preview is no longer available.</p>
<p class="note">${escapeHtml(msg.text)}</p>`
  return documentShell('Preview unavailable', body)
}
