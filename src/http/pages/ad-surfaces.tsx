import { disclosedAd } from '../../domain/preview.ts'

/**
 * The ad as the two clients show it, disclosed: `Ad · {brand} · {ad_line}`
 * (domain/preview.ts#disclosedAd). The terminal client prints it as the status
 * line under the coding tool's prompt (operations.md section 7); the editor
 * extension shows it as a status bar item while the assistant works (section
 * 9). One rendering, used by the preview page (pages/preview-page.ts, its
 * styles inlined), the home page, the create form and the campaign page's
 * preview (the same styles from /assets/ad-surfaces.css). Pure rendering.
 *
 * Neither client draws the creative's icon (a status bar item and a terminal
 * line are text), so no surface does; `iconNote` says so where an icon is set.
 */

export interface AdSurfaceView {
  adLine: string
  brand: string | null
  iconUrl: string | null // https URL or data: URI; shown by neither client
}

/** Light or dark as the tool's theme; `auto` follows the reader's (prefers-color-scheme). */
export type SurfaceTheme = 'auto' | 'light' | 'dark'

const themeClass = (base: string, theme: SurfaceTheme) => (theme === 'auto' ? base : `${base} ${theme}`)

/**
 * A terminal running a coding tool: its own "working" row, its prompt, and
 * under it the status line `thinking-line` prints. A long line is cut at the
 * terminal's width, as the client cuts it; on a phone it wraps instead. The
 * terminal is dark unless `theme` says light.
 */
export function TerminalSurface(props: { view: AdSurfaceView; theme?: SurfaceTheme }) {
  const { adLine, brand } = props.view
  return (
    <div class={themeClass('term', props.theme ?? 'dark')}>
      <p class="prev">● Read src/http/client.ts</p>
      <p class="working">
        <span class="spin">✻</span> Refactoring… <span class="hint">(esc to interrupt)</span>
      </p>
      <div class="prompt">&gt;</div>
      <p class="status">
        <span class="ad">{disclosedAd(adLine, brand)}</span>
      </p>
    </div>
  )
}

/** An editor with its assistant at work, and the extension's status bar item among the editor's own. */
export function EditorSurface(props: { view: AdSurfaceView; theme?: SurfaceTheme }) {
  const { adLine, brand } = props.view
  return (
    <div class={themeClass('editor', props.theme ?? 'auto')}>
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
          <div class="thinking">Working…</div>
        </div>
      </div>
      <p class="statusbar">
        <span class="sb">main</span>
        <span class="sb sb-ad">
          <span class="ad">{disclosedAd(adLine, brand)}</span>
        </span>
        <span class="sb sb-end">Ln 12, Col 4</span>
      </p>
    </div>
  )
}

/** Said under the surfaces when the creative has an icon: no client draws it. */
export const ICON_NOTE = 'The icon is not shown: the status bar item and the terminal line are text only.'

export function IconNote(props: { view: AdSurfaceView }) {
  return props.view.iconUrl ? <p class="caption">{ICON_NOTE}</p> : null
}
