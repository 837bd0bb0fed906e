import { Command, CommanderError } from 'commander'
import { accountCommands } from './commands/account.js'
import { campaignCommands } from './commands/campaigns.js'
import { exportCommands } from './commands/exports.js'
import { invoiceCommands } from './commands/invoices.js'
import { ledgerCommands } from './commands/ledger.js'
import { reportCommands } from './commands/reports.js'
import { shellCommands } from './commands/shell.js'
import { webhookCommands } from './commands/webhooks.js'
import { running, type Io } from './context.js'
import { apiUrlOf } from './credentials.js'
import { EXIT, failure, type Failure } from './exit.js'

/** Every error line begins the same way, whatever found the error (commander, adctl or the API). */
export const ERROR_PREFIX = 'adctl: error: '

/** Where commander's own error messages go: kept, and printed by `main` with the one prefix (or as JSON). */
interface Errors {
  text: string
}

/** The program, its global options and every command (operations.md section 8). */
export function program(io: Io, errors: Errors = { text: '' }): Command {
  const output = {
    writeOut: (s: string) => io.stdout.write(s),
    writeErr: (s: string) => io.stderr.write(s),
    outputError: (s: string) => {
      errors.text += s
    },
  }
  const p = new Command('adctl')
    .description('The Advertiser Campaign API from a terminal.')
    .version('0.1.0')
    .option('--api-url <url>', 'the service (else ADCTL_API_URL, else the URL `adctl login` stored, else http://127.0.0.1:8080)')
    .option('--profile <name>', 'which stored login to use (else ADCTL_PROFILE, else "default")')
    .option('--user-id <id>', 'credentials (else ADCTL_USER_ID/ADCTL_API_KEY, else what `adctl login` stored)')
    .option('--api-key <key>')
    .option('--json', 'print the API answer as JSON on stdout, nothing else there (errors as JSON on stderr)')
    .option('--insecure-http', 'allow a plain http:// --api-url to a host other than loopback (the key is sent unencrypted)')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput(output)
  accountCommands(p, io)
  campaignCommands(p, io)
  reportCommands(p, io)
  exportCommands(p, io)
  webhookCommands(p, io)
  invoiceCommands(p, io)
  ledgerCommands(p, io)
  shellCommands(p, io)
  // Subcommands inherit the error handling: a usage error anywhere is exit 2, never a stack trace.
  const inherit = (c: Command) => {
    c.exitOverride().configureOutput(output)
    c.commands.forEach(inherit)
  }
  p.commands.forEach(inherit)
  return p
}

/** The words of the command being run (`campaigns create`), as far as they can be told from argv. */
function commandPath(root: Command, args: string[]): string {
  const path: string[] = []
  let at = root
  for (const a of args) {
    const next = at.commands.find((c) => c.name() === a || c.aliases().includes(a))
    if (!next) continue
    path.push(next.name())
    at = next
  }
  return path.join(' ')
}

/** The value of a global `--flag value` / `--flag=value` in argv, if any. */
function globalValue(args: string[], flag: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') break
    if (args[i] === flag) return args[i + 1]
    if (args[i]?.startsWith(`${flag}=`)) return args[i]!.slice(flag.length + 1)
  }
  return undefined
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  const errors: Errors = { text: '' }
  const root = program(io, errors)
  const args = argv.slice(2)
  const json = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined).includes('--json')
  const report = (f: Failure) => {
    if (json) io.stderr.write(`${JSON.stringify(f.json)}\n`)
    else io.stderr.write(f.lines.map((l) => `${ERROR_PREFIX}${l}\n`).join(''))
    return f.code
  }
  try {
    await root.parseAsync(argv)
    return EXIT.done
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.done
      const lines = errors.text
        .split('\n')
        .map((l) => l.replace(/^error: /, '').replace(/^\((.*)\)$/, '$1'))
        .filter((l) => l.trim() !== '')
      // `adctl campaigns` alone prints its help (on stderr) and no error: still bad usage.
      if (lines.length === 0) return EXIT.usage
      const path = commandPath(root, args)
      lines.push(`run \`adctl ${path ? `${path} ` : ''}--help\` for usage`)
      return report({ code: EXIT.usage, lines, json: { error: { exit_code: EXIT.usage, reason: 'usage', message: lines[0] ?? error.message } } })
    }
    if (error instanceof Error && error.name === 'ExitPromptError') {
      io.stderr.write('Cancelled.\n')
      return EXIT.usage
    }
    const serviceUrl = running.apiUrl ?? apiUrlOf(globalValue(args, '--api-url'), io.env, null)
    return report(failure(error, commandPath(root, args), serviceUrl))
  }
}
