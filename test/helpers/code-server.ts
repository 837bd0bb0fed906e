/**
 * A real VS Code for the editor extension's tests and demo: code-server (VS Code for the web, from
 * the npm registry, installed by .ci/code-server into a cache folder outside the checkout, run on
 * Node 24 from .ci/node-lts) with the extension's .vsix installed, a folder open and settings of
 * the test's own, and Chromium (playwright-core) driving its workbench: the command palette, the
 * status bar, the window's focus and visibility. Nothing the workbench asks for leaves the
 * machine: every request off the loopback is answered by the browser context itself.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { crc32 } from 'node:zlib'
import { join } from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'

const root = new URL('../..', import.meta.url).pathname

export interface CodeServerInstall {
  /** code-server's folder (out/node/entry.js starts it). */
  dir: string
  /** The Node 24 binary it runs on. */
  node: string
}

let install: CodeServerInstall | undefined
/**
 * The cached install (.ci/code-server installs it on first use: minutes, the native modules build
 * from source; then it answers at once). Its progress goes to this process's stderr.
 */
export function codeServerInstall(): CodeServerInstall {
  install ??= {
    dir: execFileSync(join(root, '.ci/code-server'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 1_800_000 }).trim(),
    node: join(execFileSync(join(root, '.ci/node-lts'), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(), 'node'),
  }
  return install
}

const EXTENSION_DIR = join(root, 'packages/vscode-extension')

/** The newest modification time under a path (0 when absent), skipping node_modules and packages. */
function newest(path: string): number {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return path.endsWith('.vsix') ? 0 : stat.mtimeMs
  let latest = 0
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'test') continue
    latest = Math.max(latest, newest(join(path, entry)))
  }
  return latest
}

/** The extension's packages (.vsix) in its folder or its dist/, newest first. */
function packagesBuilt(): string[] {
  return [EXTENSION_DIR, join(EXTENSION_DIR, 'dist')]
    .filter((d) => existsSync(d))
    .flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.vsix')).map((f) => join(d, f)))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
}

/**
 * The extension's .vsix, built by `npm run package -w packages/vscode-extension` when there is
 * none or its sources (manifest, code, README, images; the shared client core included) changed
 * since. THINKING_LINE_VSIX names another package to test instead.
 */
export function builtVsix(): string {
  // A given package instead (a release candidate, or one built elsewhere).
  if (process.env.THINKING_LINE_VSIX) return process.env.THINKING_LINE_VSIX
  const sources = Math.max(newest(EXTENSION_DIR), newest(join(root, 'packages/ad-client/src')), newest(join(root, 'packages/ad-client/package.json')))
  const current = packagesBuilt()[0]
  if (current && statSync(current).mtimeMs >= sources) return current
  execFileSync('npm', ['run', 'package', '-w', 'packages/vscode-extension'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], timeout: 300_000 })
  const built = packagesBuilt()[0]
  if (!built) throw new Error('npm run package -w packages/vscode-extension made no .vsix')
  return built
}

/** A zip archive of the files (stored, not compressed): what a .vsix is. */
function zip(files: { name: string; data: Buffer }[]): Buffer {
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const { name, data } of files) {
    const fileName = Buffer.from(name, 'utf8')
    const crc = crc32(data)
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4) // version needed
    local.writeUInt16LE(0x0800, 6) // UTF-8 names
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(data.length, 18)
    local.writeUInt32LE(data.length, 22)
    local.writeUInt16LE(fileName.length, 26)
    const entry = Buffer.alloc(46)
    entry.writeUInt32LE(0x02014b50, 0)
    entry.writeUInt16LE(20, 4)
    entry.writeUInt16LE(20, 6)
    entry.writeUInt16LE(0x0800, 8)
    entry.writeUInt32LE(crc, 16)
    entry.writeUInt32LE(data.length, 20)
    entry.writeUInt32LE(data.length, 24)
    entry.writeUInt16LE(fileName.length, 28)
    entry.writeUInt32LE(offset, 42)
    parts.push(local, fileName, data)
    central.push(entry, fileName)
    offset += local.length + fileName.length + data.length
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(files.length, 8)
  end.writeUInt16LE(files.length, 10)
  end.writeUInt32LE(centralSize, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...parts, ...central, end])
}

/**
 * Packs a small test extension (a folder with package.json and plain JavaScript, no
 * dependencies) into a .vsix that `--install-extension` takes: its files under extension/, the
 * manifest and the content types a VSIX package carries. The real extension is packed by vsce
 * (builtVsix); this is for the test's own helper extension.
 */
export function packTestExtension(folder: string, out: string): string {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name: string; publisher: string; version: string; engines: { vscode: string } }
  const vsixManifest = `<?xml version="1.0" encoding="utf-8"?>
<PackageManifest Version="2.0.0" xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011">
  <Metadata>
    <Identity Language="en-US" Id="${manifest.name}" Version="${manifest.version}" Publisher="${manifest.publisher}" />
    <DisplayName>${manifest.name}</DisplayName>
    <Description xml:space="preserve">${manifest.name}</Description>
    <Properties><Property Id="Microsoft.VisualStudio.Code.Engine" Value="${manifest.engines.vscode}" /></Properties>
  </Metadata>
  <Installation><InstallationTarget Id="Microsoft.VisualStudio.Code" /></Installation>
  <Dependencies />
  <Assets><Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" Addressable="true" /></Assets>
</PackageManifest>
`
  const contentTypes = `<?xml version="1.0" encoding="utf-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension=".json" ContentType="application/json" /><Default Extension=".js" ContentType="application/javascript" /><Default Extension=".vsixmanifest" ContentType="text/xml" /></Types>
`
  const files = readdirSync(folder).filter((f) => statSync(join(folder, f)).isFile())
  writeFileSync(
    out,
    zip([
      { name: '[Content_Types].xml', data: Buffer.from(contentTypes) },
      { name: 'extension.vsixmanifest', data: Buffer.from(vsixManifest) },
      ...files.map((f) => ({ name: `extension/${f}`, data: readFileSync(join(folder, f)) })),
    ]),
  )
  return out
}

/** A port free right now on the loopback. */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/**
 * The user settings every started VS Code gets, under the caller's: no welcome page, no
 * workspace-trust prompt (restricted mode would keep the extension from running), no telemetry,
 * no update, recommendation or type-acquisition fetches (they would call out), and no tips,
 * walkthroughs or empty chat side bar.
 */
export const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'npm.fetchOnlinePackageInfo': false,
  'git.enabled': false,
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'typescript.disableAutomaticTypeAcquisition': true,
}

export interface CodeServerOptions {
  /** The folder the workbench opens. */
  folder: string
  /** Packages (.vsix) installed before it starts. */
  extensions?: string[]
  /** User settings (over QUIET_SETTINGS). */
  settings?: Record<string, unknown>
  /** Extra environment of the server (and so of its extension host). */
  env?: Record<string, string>
  /** A fixed port (else a free one). */
  port?: number
}

export interface CodeServer {
  /** The workbench, with the folder open. */
  url: string
  userDataDir: string
  extensionsDir: string
  /** What the server printed so far (for a failing test's message). */
  output(): string
  /** Stops it (its whole process group) and removes its folders. */
  close(): Promise<void>
}

/** Runs code-server's own command line (installing a package, listing them) and returns its output. */
function codeServerCli(args: string[], env: NodeJS.ProcessEnv): string {
  const { dir, node } = codeServerInstall()
  return execFileSync(node, [join(dir, 'out/node/entry.js'), ...args], { encoding: 'utf8', env, timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] })
}

/**
 * Starts code-server on the loopback without a password, with its own user data, extensions
 * and configuration folders (nothing of this machine's VS Code or code-server is read or
 * written), the packages installed and the folder open; resolves once it answers.
 */
export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  const { dir, node } = codeServerInstall()
  const base = mkdtempSync(join(tmpdir(), 'code-server-'))
  const userDataDir = join(base, 'user-data')
  const extensionsDir = join(base, 'extensions')
  mkdirSync(join(userDataDir, 'User'), { recursive: true })
  mkdirSync(extensionsDir, { recursive: true })
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...QUIET_SETTINGS, ...options.settings }, null, 2))
  const env: NodeJS.ProcessEnv = {
    PATH: `${join(node, '..')}:${process.env.PATH ?? ''}`,
    HOME: base,
    XDG_CONFIG_HOME: join(base, 'config'),
    XDG_DATA_HOME: join(base, 'data'),
    XDG_CACHE_HOME: join(base, 'cache'),
    ...options.env,
  }
  for (const vsix of options.extensions ?? []) codeServerCli(['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'], env)

  const port = options.port ?? (await freePort())
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(options.folder)}`
  const child: ChildProcess = spawn(
    node,
    [
      join(dir, 'out/node/entry.js'),
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      '--config', join(base, 'config.yaml'),
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      '--disable-getting-started-override',
      options.folder,
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  child.stderr?.on('data', (chunk: Buffer) => void (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))

  const close = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGTERM')
      } catch {
        // Already gone.
      }
      const killed = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL')
        } catch {
          // Already gone.
        }
      }, 5_000)
      await exited
      clearTimeout(killed)
    }
    rmSync(base, { recursive: true, force: true })
  }

  // Up once /healthz answers (the workbench page is served from then on).
  const deadline = performance.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) {
      await close()
      throw new Error(`code-server exited with ${child.exitCode}:\n${output}`)
    }
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)
    if (up) break
    if (performance.now() > deadline) {
      await close()
      throw new Error(`code-server did not answer on ${port} within 60 s:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return { url, userDataDir, extensionsDir, output: () => output, close }
}

// ---------------------------------------------------------------------------------------------- the browser

/** Whether a URL names this machine (the loopback), where the service and code-server listen. */
export function isLoopback(url: string): boolean {
  const { protocol, hostname } = new URL(url)
  if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true
  return hostname === '127.0.0.1' || hostname === 'localhost' || hostname === '[::1]'
}

export interface Offline {
  /** Every request off the loopback the context answered itself, in order. */
  readonly answered: string[]
}

/**
 * A browser context that reaches only the loopback: any other request (a click's destination,
 * an extension gallery or a CDN a page names) is answered by the context itself with a small
 * page, and recorded, so nothing leaves the machine and a test can see where it would have gone.
 */
export async function offlineContext(browser: Browser, options: { viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; offline: Offline }> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 } })
  const answered: string[] = []
  await context.route('**/*', async (route) => {
    const url = route.request().url()
    if (isLoopback(url)) return route.continue()
    answered.push(url)
    await route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Answered by the test</title><p>Answered by the test browser: nothing leaves the machine.</p>' })
  })
  return { context, offline: { answered } }
}

/**
 * Opens the workbench and waits until it is ready to take commands: the status bar drawn and the
 * folder's name in the explorer's title (the remote extension host has connected by then).
 */
export async function openWorkbench(context: BrowserContext, server: CodeServer, timeoutMs = 90_000): Promise<Page> {
  const page = await context.newPage()
  await page.goto(server.url, { timeout: timeoutMs })
  await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs })
  await page.locator('[id="workbench.parts.statusbar"]').waitFor({ timeout: timeoutMs })
  // The remote indicator shows once the connection to the server's extension host is up.
  await page.locator('[id="workbench.parts.statusbar"] .statusbar-item').first().waitFor({ timeout: timeoutMs })
  return page
}

/**
 * Runs a command as a person does: F1, its title typed into the command palette, its row chosen.
 * The palette lists the commands known when it opens; an extension's come once the extension host
 * has read its manifest (seconds after the workbench shows), so an absent row means: close, wait,
 * open again.
 */
export async function runCommand(page: Page, title: string, timeoutMs = 45_000): Promise<void> {
  const input = page.locator('.quick-input-widget input.input')
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first()
  const deadline = performance.now() + timeoutMs
  for (;;) {
    await page.keyboard.press('F1')
    const opened = await input.waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)
    if (opened) {
      // Typed after the palette's own '>' (filling the box would replace it).
      await page.keyboard.type(title)
      if (await row.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false)) break
      await page.keyboard.press('Escape')
    }
    if (performance.now() > deadline) throw new Error(`the command palette never listed "${title}"`)
    await page.waitForTimeout(1_000)
  }
  await row.click()
  await input.waitFor({ state: 'hidden', timeout: 10_000 })
}

/** Opens a file of the folder in an editor through Quick Open (Ctrl+P, its name, Enter). */
export async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press('Control+P')
  const input = page.locator('.quick-input-widget input.input')
  await input.waitFor({ state: 'visible', timeout: 10_000 })
  await page.keyboard.type(name)
  await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().waitFor({ state: 'visible', timeout: 15_000 })
  await page.keyboard.press('Enter')
  await page.locator('.editor-group-container .tab', { hasText: name }).first().waitFor({ state: 'visible', timeout: 15_000 })
}

/** The status bar's items whose text matches. */
export function statusBarItem(page: Page, text: RegExp | string): Locator {
  return page.locator('[id="workbench.parts.statusbar"] .statusbar-item').filter({ hasText: text })
}

/** The notification toasts on screen (and the notification centre, when open). */
export function notifications(page: Page): Locator {
  return page.locator('.notification-toast, .notifications-center .notification-list-item')
}

/** The hover a status bar item shows on mouse-over: its text. */
export async function hoverText(page: Page, item: Locator): Promise<string> {
  await item.hover()
  const hover = page.locator('.monaco-hover, .workbench-hover').filter({ visible: true }).first()
  await hover.waitFor({ state: 'visible', timeout: 10_000 })
  return (await hover.innerText()).trim()
}

/**
 * Takes the focus away from the workbench as when its person switches to another tab: another
 * page of the context comes to the front, and the workbench's document loses focus for real (a
 * `blur`; `document.hasFocus()` false, so VS Code's `window.state.focused` turns false). Headless
 * Chromium under Playwright reports every page focused (focus emulation), so that is switched
 * off for the workbench page first. (Minimising the window through the DevTools protocol changes
 * neither focus nor visibility in headless Chromium.) Returns what gives the focus back.
 */
export async function leaveWorkbench(page: Page): Promise<() => Promise<void>> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false })
  const other = await page.context().newPage()
  await other.goto('about:blank')
  await other.bringToFront()
  return async () => {
    await other.close()
    await page.bringToFront()
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true })
    await cdp.detach()
  }
}

/** Whether the workbench's document has the focus and is visible, as the page itself sees it. */
export function workbenchFocus(page: Page): Promise<{ focused: boolean; visible: boolean }> {
  return page.evaluate(() => ({ focused: document.hasFocus(), visible: document.visibilityState === 'visible' }))
}

/**
 * A screenshot of the status bar's end around an item, with a strip of the editor above it (for
 * a README): `width` pixels ending `padRight` pixels past the item's right edge.
 */
export async function statusBarShot(page: Page, item: Locator, path: string, options: { width?: number; above?: number; padRight?: number } = {}): Promise<void> {
  const box = await item.boundingBox()
  const bar = await page.locator('[id="workbench.parts.statusbar"]').boundingBox()
  if (!box || !bar) throw new Error('the status bar item is not on screen')
  const viewport = page.viewportSize() ?? { width: 1280, height: 800 }
  const width = Math.min(options.width ?? 720, viewport.width)
  const right = Math.min(viewport.width, box.x + box.width + (options.padRight ?? 120))
  const x = Math.max(0, right - width)
  const above = options.above ?? 48
  const y = Math.max(0, bar.y - above)
  mkdirSync(join(path, '..'), { recursive: true })
  await page.screenshot({ path, clip: { x, y, width: right - x, height: bar.y + bar.height - y }, animations: 'disabled' })
}
