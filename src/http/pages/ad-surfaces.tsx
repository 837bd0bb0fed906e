/**
 * The ad line as the coding tools show it: the terminal status line and the
 * editor extension's assistant panel. One rendering, used by the preview page
 * (pages/preview-page.ts, its styles inlined) and the home page (pages/public/
 * home.tsx, the same styles from /assets/ad-surfaces.css). Pure rendering; an
 * icon is drawn only from a data: URI (an https icon would tell its server
 * that someone looked).
 */

export interface AdSurfaceView {
  adLine: string
  brand: string | null
  iconUrl: string | null // https URL or data: URI
}

const DATA_ICON_RE = /^data:image\/(?:png|jpeg|gif|webp|svg\+xml)(?:;[a-z0-9-]+=[a-z0-9._-]+)*(?:;base64)?,[^\s"'<>`]*$/i

export type IconRender = { kind: 'data'; src: string } | { kind: 'remote'; host: string } | { kind: 'none' }

export function classifyIcon(iconUrl: string | null): IconRender {
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

/**
 * "Fix flaky tests fast." -> "Fix flaky tests fast…" (the agent appends its own ellipsis).
 * assets/site.js repeats this rule for the create form's live preview.
 */
export function thinkingText(adLine: string): string {
  return adLine.trim().replace(/(?:\.{1,3}|…)$/u, '') + '…'
}

function Icon(props: { icon: IconRender }) {
  if (props.icon.kind === 'data') return <img class="icon" src={props.icon.src} alt="" width={16} height={16} />
  if (props.icon.kind === 'remote') return <span class="icon icon-placeholder" aria-hidden="true"></span>
  return null
}

/**
 * The terminal status line under a finished tool call, above the prompt.
 * `live` (both surfaces; the create form's preview): the brand's element is
 * rendered even without a brand, hidden, so assets/site.js can fill it in.
 */
export function TerminalSurface(props: { view: AdSurfaceView; live?: boolean }) {
  const { adLine, brand } = props.view
  return (
    <div class="term">
      <p class="prev">● Read src/http/client.ts</p>
      <div class="status">
        <span class="spin">✻</span>
        <span class="ad">{thinkingText(adLine)}</span>
        <span class="hint">(esc to interrupt)</span>
        {brand || props.live ? (
          <span class="brand" hidden={brand ? undefined : true}>
            · {brand ?? ''}
          </span>
        ) : null}
      </div>
      <div class="prompt">&gt;</div>
    </div>
  )
}

/** The editor with the assistant's panel "thinking" in the ad line; a remote icon is a placeholder with its host named below. */
export function EditorSurface(props: { view: AdSurfaceView; live?: boolean }) {
  const { adLine, brand, iconUrl } = props.view
  const icon = classifyIcon(iconUrl)
  return (
    <>
      <div class="editor">
        <div class="titlebar">
          <span class="dot"></span>
          <span class="dot"></span>
          <span class="dot"></span>
        </div>
        <div class="body">
          <div class="code" aria-hidden="true">
            <div></div>
            <div></div>
            <div></div>
            <div></div>
            <div></div>
          </div>
          <div class="panel">
            <div class="panel-title">Assistant</div>
            <div class="msg">Refactor the retry logic in the HTTP client.</div>
            <div class="thinking">
              <Icon icon={icon} />
              <span>
                <span class="ad">{thinkingText(adLine)}</span>
                {brand || props.live ? (
                  <span class="brand" hidden={brand ? undefined : true}>
                    {brand ?? ''}
                  </span>
                ) : null}
              </span>
            </div>
          </div>
        </div>
      </div>
      {icon.kind === 'remote' ? <p class="caption">icon loaded from {icon.host} when served</p> : null}
    </>
  )
}
