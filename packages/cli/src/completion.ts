import type { Command, Option } from 'commander'
import { PAGES } from './commands/shell.js'

/**
 * Shell completion scripts made from the program's own commander tree (commands, subcommands,
 * options, and the values an option takes), so they cannot drift from `--help`. Static: a TAB
 * never starts node.
 */

interface OptionInfo {
  long: string
  short: string | null
  description: string
  /** null: a flag without a value; 'file' completes file names; 'any' completes nothing; else the words. */
  values: null | 'file' | 'any' | string[]
}

/** The words a command takes as its argument (completed like subcommands). */
const ARGUMENT_WORDS: Record<string, string[]> = {
  completion: ['bash', 'zsh', 'fish'],
  open: Object.keys(PAGES),
}

interface Node {
  path: string
  subs: { name: string; description: string }[]
  options: OptionInfo[]
}

/** Values adctl checks itself (so commander has no `choices` for them), and options that take a file. */
const KNOWN_VALUES: Record<string, string[] | 'file'> = {
  '--surface': ['extension', 'terminal'],
  '--kind': ['impression', 'click'],
  '--out': 'file',
  '--tokens': 'file',
  '--keys': 'file',
}

function optionInfo(o: Option): OptionInfo {
  const takesValue = o.required || o.optional
  const known = o.long ? KNOWN_VALUES[o.long] : undefined
  const values = !takesValue ? null : o.argChoices ? o.argChoices : known === 'file' ? 'file' : (known ?? 'any')
  return { long: o.long ?? '', short: o.short ?? null, description: o.description, values }
}

function nodes(root: Command): Node[] {
  const out: Node[] = []
  const visit = (cmd: Command, path: string[]) => {
    out.push({
      path: path.join(' '),
      subs: [...cmd.commands.map((c) => ({ name: c.name(), description: c.description() })), ...(ARGUMENT_WORDS[path.join(' ')] ?? []).map((name) => ({ name, description: name }))],
      options: [...cmd.options.map(optionInfo), { long: '--help', short: '-h', description: 'display help for command', values: null }],
    })
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()])
  }
  visit(root, [])
  return out
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

function bash(root: Command): string {
  const all = nodes(root)
  const subs = all.filter((n) => n.subs.length > 0).map((n) => `    ${sq(n.path)}) echo ${sq(n.subs.map((s) => s.name).join(' '))} ;;`)
  const opts = all.map((n) => `    ${sq(n.path)}) echo ${sq(n.options.flatMap((o) => [o.long, ...(o.short ? [o.short] : [])]).join(' '))} ;;`)
  const globals = all[0]!.options.filter((o) => o.values !== null)
  const values = [
    ...globals.map((o) => `    *${sq(`|${o.long}`)}) echo ${o.values === 'file' ? '@file' : Array.isArray(o.values) ? sq(o.values.join(' ')) : '@any'} ;;`),
    ...all.flatMap((n) =>
      n.path === ''
        ? []
        : n.options
            .filter((o) => o.values !== null)
            .flatMap((o) => [o.long, ...(o.short ? [o.short] : [])].map((flag) => `    ${sq(`${n.path}|${flag}`)}) echo ${o.values === 'file' ? '@file' : Array.isArray(o.values) ? sq(o.values.join(' ')) : '@any'} ;;`)),
    ),
  ]
  return `# adctl completion for bash (made by \`adctl completion bash\`).
# Load it now: source <(adctl completion bash)
# For every shell: adctl completion bash > ~/.local/share/bash-completion/completions/adctl

_adctl_subcommands() {
  case "$1" in
${subs.join('\n')}
  esac
}

_adctl_options() {
  case "$1" in
${opts.join('\n')}
  esac
}

# What the option $2 of the command $1 takes: @file, @any, a word list, or nothing (no value).
_adctl_values() {
  case "$1|$2" in
${values.join('\n')}
  esac
}

_adctl() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} path='' i w v
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=\${COMP_WORDS[i]}
    if [[ $w == -* ]]; then
      [[ $w == *=* ]] && continue
      v=$(_adctl_values "$path" "$w")
      [[ -n $v ]] && ((i++))
      continue
    fi
    if [[ " $(_adctl_subcommands "$path") " == *" $w "* ]]; then
      path=\${path:+$path }$w
    fi
  done
  if [[ $COMP_CWORD -gt 1 && $prev == -* ]]; then
    v=$(_adctl_values "$path" "$prev")
    case $v in
      '') ;;
      @file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
      @any) COMPREPLY=(); return ;;
      *) COMPREPLY=($(compgen -W "$v" -- "$cur")); return ;;
    esac
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_adctl_options "$path") $([[ -n $path ]] && _adctl_options '')" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_adctl_subcommands "$path")" -- "$cur"))
  fi
}

complete -F _adctl adctl
`
}

function zsh(root: Command): string {
  return `# adctl completion for zsh (made by \`adctl completion zsh\`): zsh's bash completion layer runs the bash script.
# Load it from ~/.zshrc, after compinit: source <(adctl completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bash(root)}`
}

const fq = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

function fish(root: Command): string {
  const all = nodes(root)
  const subs = all.filter((n) => n.subs.length > 0).map((n) => `        case ${fq(n.path)}\n            echo ${n.subs.map((s) => s.name).join(' ')}`)
  const lines: string[] = []
  for (const n of all) {
    const at = n.path === '' ? '' : ` -n "__adctl_at ${fq(n.path)}"`
    for (const s of n.subs) lines.push(`complete -c adctl -n "__adctl_at ${fq(n.path)}" -a ${s.name} -d ${fq(s.description)}`)
    for (const o of n.options) {
      const flags = `-l ${o.long.replace(/^--/, '')}${o.short ? ` -s ${o.short.replace(/^-/, '')}` : ''}`
      const value = o.values === null ? '' : o.values === 'file' ? ' -r -F' : o.values === 'any' ? ' -x' : ` -x -a ${fq(o.values.join(' '))}`
      lines.push(`complete -c adctl${at} ${flags}${value} -d ${fq(o.description || o.long)}`)
    }
  }
  return `# adctl completion for fish (made by \`adctl completion fish\`).
# Install: adctl completion fish > ~/.config/fish/completions/adctl.fish

function __adctl_subs
    switch "$argv[1]"
${subs.join('\n')}
    end
end

# The command typed so far (\`campaigns create\`), options and their values skipped.
function __adctl_path
    set -l path
    for w in (commandline -opc)[2..-1]
        string match -q -- '-*' $w; and continue
        if contains -- $w (string split ' ' -- (__adctl_subs (string join ' ' -- $path)))
            set path $path $w
        end
    end
    string join ' ' -- $path
end

function __adctl_at
    set -l p (__adctl_path)
    test "$p" = "$argv[1]"
end

complete -c adctl -f
${lines.join('\n')}
`
}

export function completionScript(shell: 'bash' | 'zsh' | 'fish', program: Command): string {
  const root = rootOf(program)
  return shell === 'bash' ? bash(root) : shell === 'zsh' ? zsh(root) : fish(root)
}

function rootOf(c: Command): Command {
  let at = c
  while (at.parent) at = at.parent
  return at
}
