import type { Command } from 'commander'
import { program } from './main.js'

/**
 * The `--help` of every command, as the Markdown section of docs/cli.md between its
 * `<!-- adctl --help -->` markers (a test keeps it current). Wrapped at 100 columns whatever the terminal.
 */
export function helpReference(): string {
  const discard = { write: () => true }
  const root = program({ stdout: discard, stderr: discard, env: {} })
  const sections: string[] = []
  const visit = (cmd: Command, path: string[]) => {
    cmd.configureHelp({ ...cmd.configureHelp(), helpWidth: 100 })
    sections.push(`### \`${['adctl', ...path].join(' ')}\`\n\n\`\`\`text\n${cmd.helpInformation().trimEnd()}\n\`\`\``)
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()])
  }
  visit(root, [])
  return sections.join('\n\n')
}
