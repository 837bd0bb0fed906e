// Public, presentation-only preview of an ad line. Pure rendering: no I/O.
//
// The page must not leak that someone looked at it: no scripts, no external
// resources, no clickable destination. Only data: icons are rendered; an https
// icon is replaced by a neutral placeholder (fetching it would notify the
// advertiser's server). The route sends PREVIEW_PAGE_CSP alongside the HTML.

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

const DATA_ICON_RE = /^data:image\/(?:png|jpeg|gif|webp|svg\+xml)(?:;[a-z0-9-]+=[a-z0-9._-]+)*(?:;base64)?,[^\s"'<>`]*$/i

type IconRender = { kind: 'data'; src: string } | { kind: 'remote'; host: string } | { kind: 'none' }

function classifyIcon(iconUrl: string | null): IconRender {
  if (!iconUrl) return { kind: 'none' }
  if (DATA_ICON_RE.test(iconUrl)) return { kind: 'data', src: iconUrl }
  try {
    const url = new URL(iconUrl)
    if (url.protocol === 'https:' && url.hostname) return { kind: 'remote', host: url.hostname }
  } catch {
    // fall through: unusable icon is simply not shown
  }
  return { kind: 'none' }
}

function iconHtml(icon: IconRender): string {
  if (icon.kind === 'data') return `<img class="icon" src="${escapeHtml(icon.src)}" alt="" width="16" height="16">`
  if (icon.kind === 'remote') return '<span class="icon icon-placeholder" aria-hidden="true"></span>'
  return ''
}

function formatExpiry(expiresAt: Date): string {
  return Number.isNaN(expiresAt.getTime()) ? 'unknown' : expiresAt.toISOString()
}

/** "Fix flaky tests fast." -> "Fix flaky tests fast…" (the agent appends its own ellipsis). */
export function thinkingText(adLine: string): string {
  return adLine.trim().replace(/(?:\.{1,3}|…)$/u, '') + '…'
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--fg:#1d2129;--muted:#5f6672;--card:#fff;--line:#dde1e6;
--ed-bg:#f3f3f3;--ed-side:#fafafa;--ed-bar:#e6e6e6;--ed-fg:#333;--ed-dim:#6b6b6b;--ed-accent:#4a6fa5}
@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e6e8eb;--muted:#9aa1ad;--card:#1d2026;--line:#2c3038;
--ed-bg:#1e1e1e;--ed-side:#252526;--ed-bar:#323233;--ed-fg:#cccccc;--ed-dim:#9d9d9d;--ed-accent:#7aa2d6}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:760px;margin:0 auto;padding:32px 20px 48px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:13px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:28px 0 10px}
.meta{color:var(--muted);font-size:13px;margin:0}
.note{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;font-size:13px;margin:16px 0 0}
.dest{margin:16px 0 0;font-size:14px}
.dest code{word-break:break-all;background:var(--card);border:1px solid var(--line);border-radius:4px;padding:1px 5px}
code,.term{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.term{background:#0d0f12;color:#d7dae0;border:1px solid #262a31;border-radius:8px;padding:14px 16px;font-size:13.5px;box-shadow:0 1px 3px rgba(0,0,0,.25)}
.term .prev{color:#8b919c;margin:0 0 8px}
.term .status{display:flex;gap:.6ch;white-space:nowrap;overflow:hidden}
.term .spin{color:#d9825b}
.term .ad{color:#e8a87c;overflow:hidden;text-overflow:ellipsis}
.term .hint,.term .brand{color:#8b919c}
.term .prompt{margin:10px 0 0;border:1px solid #3a3f48;border-radius:6px;padding:6px 10px;color:#8b919c}
.editor{border:1px solid var(--line);border-radius:8px;overflow:hidden;background:var(--ed-bg);color:var(--ed-fg);
box-shadow:0 1px 3px rgba(0,0,0,.15);font-size:13px}
.editor .titlebar{background:var(--ed-bar);padding:6px 12px;display:flex;gap:6px;align-items:center}
.editor .dot{width:10px;height:10px;border-radius:50%;background:var(--ed-dim);opacity:.5}
.editor .body{display:flex;min-height:150px}
.editor .code{flex:1;padding:12px 14px;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;color:var(--ed-dim)}
.editor .code div{height:8px;border-radius:4px;background:currentColor;opacity:.25;margin:8px 0;width:62%}
.editor .code div:nth-child(2){width:78%}.editor .code div:nth-child(3){width:45%}.editor .code div:nth-child(4){width:70%}.editor .code div:nth-child(5){width:30%}
.editor .panel{width:55%;background:var(--ed-side);border-left:1px solid var(--line);padding:12px 14px;display:flex;flex-direction:column;gap:10px}
.editor .panel-title{font-size:11px;text-transform:uppercase;letter-spacing:.06em;color:var(--ed-dim)}
.editor .msg{background:var(--ed-bg);border-radius:6px;padding:8px 10px;color:var(--ed-fg)}
.editor .thinking{display:flex;align-items:flex-start;gap:8px;font-style:italic;line-height:1.45}
.editor .thinking .icon{margin-top:2px}
.editor .thinking .ad{background:linear-gradient(90deg,var(--ed-dim) 0%,var(--ed-fg) 45%,var(--ed-dim) 90%);background-size:200% 100%;
-webkit-background-clip:text;background-clip:text;color:transparent;animation:shimmer 2.4s linear infinite}
.editor .thinking .brand{color:var(--ed-dim);font-style:normal;font-size:12px;white-space:nowrap;margin-left:4px}
@keyframes shimmer{from{background-position:100% 0}to{background-position:-100% 0}}
@media (prefers-reduced-motion:reduce){.editor .thinking .ad{animation:none;color:var(--ed-fg);background:none}}
.icon{width:16px;height:16px;flex:none;border-radius:3px;display:inline-block;object-fit:contain}
.icon-placeholder{background:var(--ed-dim);opacity:.45}
.caption{font-size:12px;color:var(--muted);margin:6px 0 0}
`

function renderTerminal(view: PreviewView): string {
  const brand = view.brand ? ` <span class="brand">· ${escapeHtml(view.brand)}</span>` : ''
  return `<h2>Terminal status line</h2>
<div class="term">
  <p class="prev">● Read src/http/client.ts</p>
  <div class="status"><span class="spin">✻</span><span class="ad">${escapeHtml(thinkingText(view.adLine))}</span><span class="hint">(esc to interrupt)</span>${brand}</div>
  <div class="prompt">&gt;</div>
</div>`
}

function renderExtension(view: PreviewView, icon: IconRender): string {
  const brand = view.brand ? `<span class="brand">${escapeHtml(view.brand)}</span>` : ''
  const caption =
    icon.kind === 'remote' ? `<p class="caption">icon loaded from ${escapeHtml(icon.host)} when served</p>` : ''
  return `<h2>Editor extension</h2>
<div class="editor">
  <div class="titlebar"><span class="dot"></span><span class="dot"></span><span class="dot"></span></div>
  <div class="body">
    <div class="code" aria-hidden="true"><div></div><div></div><div></div><div></div><div></div></div>
    <div class="panel">
      <div class="panel-title">Assistant</div>
      <div class="msg">Refactor the retry logic in the HTTP client.</div>
      <div class="thinking">${iconHtml(icon)}<span><span class="ad">${escapeHtml(thinkingText(view.adLine))}</span>${brand}</span></div>
    </div>
  </div>
</div>
${caption}`
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
  const icon = classifyIcon(view.iconUrl)
  const sections: string[] = []
  if (view.targetSurface === 'terminal' || view.targetSurface === 'both') sections.push(renderTerminal(view))
  if (view.targetSurface === 'extension' || view.targetSurface === 'both') sections.push(renderExtension(view, icon))

  const body = `<h1>Ad line preview</h1>
<p class="meta">Preview — expires ${escapeHtml(formatExpiry(view.expiresAt))}</p>
<p class="note">This is a preview only. Viewing it creates no impressions, clicks or charges.</p>
<p class="dest">Clicks go to: <code>${escapeHtml(view.destinationUrl)}</code></p>
${sections.join('\n')}`
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
