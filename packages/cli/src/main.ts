import { Command, CommanderError } from 'commander'
import { accountCommands } from './commands/account.js'
import { campaignCommands } from './commands/campaigns.js'
import { exportCommands } from './commands/exports.js'
import { invoiceCommands } from './commands/invoices.js'
import { ledgerCommands } from './commands/ledger.js'
import { reportCommands } from './commands/reports.js'
import { webhookCommands } from './commands/webhooks.js'
import type { Io } from './context.js'
import { EXIT, failure } from './exit.js'

/** The program, its global options and every command (operations.md section 8). */
export function program(io: Io): Command {
  const p = new Command('adctl')
    .description('The Advertiser Campaign API from a terminal.')
    .version('0.1.0')
    .option('--api-url <url>', 'the service (else ADCTL_API_URL, else http://127.0.0.1:8080)')
    .option('--user-id <id>', 'credentials (else ADCTL_USER_ID/ADCTL_API_KEY, else what `adctl login` stored)')
    .option('--api-key <key>')
    .option('--json', 'print the API answer as JSON on stdout, nothing else there')
    .option('--insecure-http', 'allow a plain http:// --api-url to a host other than loopback (the key is sent unencrypted)')
    .showHelpAfterError('(run with --help for usage)')
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
  accountCommands(p, io)
  campaignCommands(p, io)
  reportCommands(p, io)
  exportCommands(p, io)
  webhookCommands(p, io)
  invoiceCommands(p, io)
  ledgerCommands(p, io)
  // Subcommands inherit the error handling: a usage error anywhere is exit 2, never a stack trace.
  for (const c of p.commands) {
    c.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    for (const sub of c.commands) sub.exitOverride().configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) }).showHelpAfterError('(run with --help for usage)')
  }
  return p
}

/** Runs one command line; returns the exit code. */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<number> {
  try {
    await program(io).parseAsync(argv)
    return EXIT.done
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander printed the message (or the help) already.
      return error.exitCode === 0 ? EXIT.done : EXIT.usage
    }
    if (error instanceof Error && error.name === 'ExitPromptError') {
      io.stderr.write('Cancelled.\n')
      return EXIT.usage
    }
    const { code, lines } = failure(error)
    io.stderr.write(`adctl: ${lines.join('\nadctl: ')}\n`)
    return code
  }
}
