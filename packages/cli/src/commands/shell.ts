import { spawn } from 'node:child_process'
import type { Command } from 'commander'
import { Context, type Io } from '../context.js'
import { usage } from '../exit.js'
import { nearest } from '../problems.js'

/** The portal's and the public site's pages `adctl open` knows, by the name typed (operations.md section 5). */
export const PAGES: Record<string, string> = {
  overview: '/portal',
  campaigns: '/portal/campaigns',
  new: '/portal/campaigns/new',
  stats: '/portal/stats',
  billing: '/portal/billing',
  invoices: '/portal/billing',
  exports: '/portal/exports',
  webhooks: '/portal/webhooks',
  key: '/portal/key',
  terms: '/portal/terms',
  transparency: '/transparency',
  status: '/status',
  docs: '/docs',
}

/** The page of a target: a campaign id, a webhook endpoint id, or a page name; null when it is none of them. */
export function pagePath(target: string | undefined): string | null {
  if (target === undefined) return PAGES.overview!
  if (/^cmp_\w+$/.test(target)) return `/portal/campaigns/${target}`
  if (/^whe_\w+$/.test(target)) return `/portal/webhooks/${target}`
  return PAGES[target] ?? null
}

/** How this machine opens a URL in a browser: $BROWSER, else the platform's opener (on Linux only with a display); null when there is none. */
function browserCommand(env: NodeJS.ProcessEnv): [string, string[]] | null {
  if (env.BROWSER) return [env.BROWSER, []]
  if (process.platform === 'darwin') return ['open', []]
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '""']]
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return ['xdg-open', []]
  return null
}

/** Starts the browser on `url`; false when it could not be started. */
function launch(command: [string, string[]], url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command[0], [...command[1], url], { stdio: 'ignore', detached: true })
    child.once('error', () => resolve(false))
    child.once('spawn', () => {
      child.unref()
      resolve(true)
    })
  })
}

export function shellCommands(program: Command, io: Io): void {
  program
    .command('open')
    .description(`A campaign (cmp_…), a webhook endpoint (whe_…) or a page in the browser: ${Object.keys(PAGES).join(', ')} (default: overview)`)
    .argument('[target]', 'campaign id, endpoint id or page name')
    .option('--print', 'print the URL instead of opening it (also what happens when no browser can be started)')
    .action(async (target: string | undefined, o: { print?: boolean }, command: Command) => {
      const ctx = await Context.of(command, io)
      const path = pagePath(target)
      if (path === null) {
        const near = nearest(target ?? '', Object.keys(PAGES))
        throw usage(`<target>: ${JSON.stringify(target)} is not a campaign id (cmp_…), an endpoint id (whe_…) or a page${near ? `; did you mean ${JSON.stringify(near)}?` : ` (${Object.keys(PAGES).join(', ')})`}`)
      }
      const url = `${new URL(ctx.apiUrl.replace(/\/+$/, '').replace(/\/v1$/, '')).origin}${path}`
      const browser = o.print ? null : browserCommand(io.env)
      const opened = browser !== null && (await launch(browser, url))
      ctx.out.data({ url, opened })
      if (opened) ctx.out.note(`Opened ${url} in the browser.`)
      else {
        ctx.out.line(url)
        if (!o.print) ctx.out.note('No browser to open it in (set BROWSER, or open the URL above yourself).')
      }
    })

  program
    .command('completion')
    .description('Print the shell completion script: bash, zsh or fish (see docs/cli.md for where to put it)')
    .argument('<shell>', 'bash, zsh or fish')
    .action(async (shell: string) => {
      const { completionScript } = await import('../completion.js')
      if (shell !== 'bash' && shell !== 'zsh' && shell !== 'fish') {
        throw usage(`<shell>: ${JSON.stringify(shell)} is not a shell adctl completes (bash, zsh or fish)`)
      }
      io.stdout.write(completionScript(shell, program))
    })
}
