/**
 * VS Code's side of the extension: the status bar item, the commands, the settings, the window's
 * focus, the exported API and the storage. The rules live in the controller (controller.ts, no
 * `vscode` import) and in the shared client core (packages/ad-client).
 *
 * Activation does no I/O and makes no request: it registers the commands and listeners and builds the
 * controller. Nothing is fetched before an assistant says it is working (or `show` is `always`). The
 * calls to the service, the report delivery and the Privacy Pass wallet are serving.ts (no `vscode`
 * import either); this file hands it the settings, the install id, the topics and the storage.
 */
import { randomUUID } from 'node:crypto'
import * as vscode from 'vscode'
import { memoryQueue, parseReports, type StoredReport } from '@thinking-line/ad-client/reports'
import { memoryTopicCache, topicsFor } from '@thinking-line/ad-client/topics'
import { memoryWalletStore } from '@thinking-line/ad-client/wallet'
import { Controller, type Offer, type ShowSetting, type Snapshot } from './controller.ts'
import { present } from './present.ts'
import { createServing, DEFAULT_SERVICE_URL } from './serving.ts'

/** Set by the bundle's first line (build.mjs): when the extension's code began to load. */
declare const __thinkingLineLoadStart: number | undefined

/** The simulated assistant's work (thinkingLine.simulateThinking). */
export const SIMULATED_THINKING_MS = 15_000
const VIEWER_KEY = 'thinkingLine.viewerId'
const REPORTS_KEY = 'thinkingLine.pendingViews'
/** Reports kept by a window that has not written for this long (it closed without saying so) are taken over. */
const ORPHANED_AFTER_MS = 10 * 60_000

/** What an assistant extension gets from `vscode.extensions.getExtension('thinking-line.thinking-line').exports`. */
export interface ThinkingLineApi {
  /** An assistant starts working; call the function returned when it stops. */
  thinking(label?: string): () => void
  /** Working until `promise` settles; answers `promise`. */
  whileThinking<T>(promise: Promise<T>): Promise<T>
  /** Hands over the user's attester JWT (a fresh one per call): views then spend Privacy Pass tokens. */
  setAttester(fn: (() => Promise<string>) | null): void
  /** activate()'s own duration, in milliseconds (performance.now). */
  readonly activationMs: number
  /** Read-only state for tests and troubleshooting: nothing about the user or the project. */
  diagnostics(): Snapshot & { activationMs: number; loadMs: number | null }
}

type KeptReports = Record<string, { at: number; released: boolean; reports: StoredReport[] }>

let controller: Controller | null = null
let release: (() => Thenable<void>) | null = null

export function activate(context: vscode.ExtensionContext): ThinkingLineApi {
  const started = performance.now()
  const loadMs = typeof __thinkingLineLoadStart === 'number' ? started - __thinkingLineLoadStart : null
  const config = () => vscode.workspace.getConfiguration('thinkingLine')
  const session = randomUUID()
  const now = () => Date.now()

  // Views not yet acknowledged: this window's in memory, mirrored into global state under its own key;
  // a closed window's are taken over (the service never bills one impression twice).
  const keptReports = (): KeptReports => {
    const raw: unknown = context.globalState.get(REPORTS_KEY)
    const out: KeptReports = {}
    if (raw === null || typeof raw !== 'object') return out
    for (const [id, entry] of Object.entries(raw)) {
      if (entry !== null && typeof entry === 'object' && typeof entry.at === 'number') out[id] = { at: entry.at, released: entry.released === true, reports: parseReports(entry.reports) }
    }
    return out
  }
  const adopted: StoredReport[] = []
  const others: KeptReports = {}
  for (const [id, entry] of Object.entries(keptReports())) {
    if (entry.released || now() - entry.at > ORPHANED_AFTER_MS) adopted.push(...entry.reports)
    else others[id] = entry
  }
  const saveReports = (reports: StoredReport[], released = false) => {
    const all = keptReports()
    if (reports.length > 0) all[session] = { at: now(), released, reports }
    else delete all[session]
    return context.globalState.update(REPORTS_KEY, all)
  }
  const queue = memoryQueue({ initial: adopted, save: (reports) => void saveReports(reports) })
  if (adopted.length > 0) void context.globalState.update(REPORTS_KEY, { ...others, [session]: { at: now(), released: false, reports: queue.list() } })
  release = () => saveReports(queue.list(), true)

  const topicCache = memoryTopicCache()
  const viewerId = () => {
    let id = context.globalState.get<string>(VIEWER_KEY)
    if (typeof id !== 'string' || id.length < 1 || id.length > 128) {
      id = randomUUID()
      void context.globalState.update(VIEWER_KEY, id)
    }
    return id
  }

  /** Topic names from the first open folder's top-level manifests (a local folder only), or none. */
  const topics = (): string[] => {
    if (!config().get<boolean>('topics', true)) return []
    const folder = vscode.workspace.workspaceFolders?.[0]
    if (!folder || folder.uri.scheme !== 'file') return []
    try {
      return topicsFor(topicCache, folder.uri.fsPath, now()).topics
    } catch {
      return []
    }
  }

  const serving = createServing({
    settings: () => ({
      serviceUrl: config().get<string>('serviceUrl', DEFAULT_SERVICE_URL),
      country: config().get<string>('country', ''),
      attestCommand: config().get<string>('attestCommand', ''),
    }),
    viewerId,
    topics,
    now,
    sleep: (ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
    queue,
    // Privacy Pass tokens: in this window's memory only (two windows never spend one token twice).
    wallet: memoryWalletStore(),
  })

  let item: vscode.StatusBarItem | null = null
  const display = {
    show(offer: Offer) {
      const p = present(offer)
      if (!item) {
        item = vscode.window.createStatusBarItem('thinkingLine.ad', vscode.StatusBarAlignment.Left, -1_000)
        item.name = 'Thinking Line ad'
        context.subscriptions.push(item)
      }
      item.text = p.text
      item.tooltip = p.tooltip
      item.accessibilityInformation = { label: p.accessibilityLabel, role: 'link' }
      item.command = p.clickUrl ? { command: 'thinkingLine.openAd', title: 'Open the ad' } : undefined
      item.show()
    },
    hide() {
      item?.hide()
    },
  }

  const showSetting = (): ShowSetting => {
    const value = config().get<string>('show', 'whileThinking')
    return value === 'always' || value === 'never' ? value : 'whileThinking'
  }
  const c = new Controller(
    {
      now,
      setTimer: (fn, ms) => {
        const timer = setTimeout(fn, ms)
        return () => clearTimeout(timer)
      },
    },
    display,
    serving,
    { show: showSetting(), focused: vscode.window.state.focused },
  )
  controller = c
  // After activation: with `show: always` the first decision (and its topics) is not activation's cost.
  setTimeout(() => c.start(), 0)

  let commandHold: (() => void) | null = null
  context.subscriptions.push(
    vscode.window.onDidChangeWindowState((state) => c.setFocused(state.focused)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('thinkingLine.show')) c.setShow(showSetting())
      if (e.affectsConfiguration('thinkingLine.attestCommand')) serving.attesterChanged()
    }),
    vscode.commands.registerCommand('thinkingLine.thinkingStarted', () => {
      commandHold ??= c.thinking()
    }),
    vscode.commands.registerCommand('thinkingLine.thinkingStopped', () => {
      commandHold?.()
      commandHold = null
    }),
    vscode.commands.registerCommand('thinkingLine.simulateThinking', () => {
      const end = c.thinking()
      setTimeout(end, SIMULATED_THINKING_MS)
    }),
    vscode.commands.registerCommand('thinkingLine.openAd', async () => {
      const offer = c.shownOffer()
      const url = offer ? present(offer).clickUrl : null
      if (url) await vscode.env.openExternal(vscode.Uri.parse(url, true))
    }),
    { dispose: () => c.dispose() },
  )

  const activationMs = performance.now() - started
  return {
    thinking: () => c.thinking(),
    whileThinking<T>(promise: Promise<T>) {
      const end = c.thinking()
      return promise.finally(end)
    },
    setAttester: (fn) => serving.setAttester(fn),
    activationMs,
    diagnostics: () => ({ ...c.snapshot(), activationMs, loadMs }),
  }
}

export async function deactivate(): Promise<void> {
  controller?.dispose()
  controller = null
  // The views still owed stay in global state, marked for the next window to send.
  await release?.()
  release = null
}
