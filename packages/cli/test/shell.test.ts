/**
 * `adctl completion` and `adctl open` (issue 51), with the real binary: the bash script is valid
 * bash and completes commands, options and their values in a real bash; `open` starts $BROWSER on
 * the page's URL, or prints it when there is no browser or with --print.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { adctl, freshConfigHome } from './run.ts'

const env = () => ({ ADCTL_API_URL: 'http://127.0.0.1:8399', XDG_CONFIG_HOME: freshConfigHome() })

/** What bash's programmable completion offers for the words typed (the last one being completed). */
function complete(script: string, words: string[]): string[] {
  const file = join(freshConfigHome(), 'adctl.bash')
  writeFileSync(file, script)
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ')
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `source '${file}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _adctl; printf '%s\\n' "\${COMPREPLY[@]}"`], { encoding: 'utf8' })
  return out.split('\n').filter((l) => l !== '')
}

test('completion bash is valid bash and completes commands, subcommands, options and their values', async () => {
  const run = await adctl(['completion', 'bash'], env())
  assert.equal(run.code, 0, run.stderr)
  const file = join(freshConfigHome(), 'adctl.bash')
  writeFileSync(file, run.stdout)
  execFileSync('bash', ['-n', file])
  assert.match(run.stdout, /\ncomplete -F _adctl adctl\n$/)

  assert.deepEqual(complete(run.stdout, ['adctl', 'camp']), ['campaigns'])
  assert.deepEqual(complete(run.stdout, ['adctl', 'campaigns', 'c']), ['create', 'cancel'])
  assert.deepEqual(complete(run.stdout, ['adctl', '--profile', 'work', 'campaigns', 'create', '--bl']), ['--blocks'])
  assert.deepEqual(complete(run.stdout, ['adctl', 'campaigns', 'create', '--surface', '']), ['extension', 'terminal'])
  assert.deepEqual(complete(run.stdout, ['adctl', 'stats', '--granularity', '']), ['hour', 'day', 'month'])
  assert.deepEqual(complete(run.stdout, ['adctl', 'campaigns', 'create', '--line', 'list', '']), [], 'a flag value is not a command')
  assert.ok(complete(run.stdout, ['adctl', 'ledger', 'verify', '--']).includes('--allow-empty'))
  assert.ok(complete(run.stdout, ['adctl', 'ledger', 'verify', '--']).includes('--json'), 'global options everywhere')
  assert.deepEqual(complete(run.stdout, ['adctl', 'completion', '']), ['bash', 'zsh', 'fish'])
  assert.deepEqual(complete(run.stdout, ['adctl', 'open', 'bi']), ['billing'])
  assert.deepEqual(complete(run.stdout, ['adctl', 'webhooks', 'l']), ['list', 'listen'])
})

test('completion zsh wraps the bash script; fish lists every command; another shell is bad usage', async () => {
  const zsh = await adctl(['completion', 'zsh'], env())
  assert.equal(zsh.code, 0)
  assert.match(zsh.stdout, /bashcompinit\n[\s\S]*complete -F _adctl adctl\n$/)
  const fish = await adctl(['completion', 'fish'], env())
  assert.equal(fish.code, 0)
  assert.match(fish.stdout, /complete -c adctl -n "__adctl_at 'campaigns'" -a create -d 'Show the auction quote/)
  assert.match(fish.stdout, /complete -c adctl -n "__adctl_at 'campaigns create'" -l surface -x -a 'extension terminal'/)
  const tcsh = await adctl(['completion', 'tcsh'], env())
  assert.equal(tcsh.code, 2)
  assert.equal(tcsh.stderr, 'adctl: error: <shell>: "tcsh" is not a shell adctl completes (bash, zsh or fish)\n')
})

test('open starts $BROWSER on the page; prints the URL with --print or when there is no browser; a typo gets the nearest page', async () => {
  const dir = freshConfigHome()
  const browser = join(dir, 'browser.sh')
  writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${join(dir, 'opened')}'\n`)
  chmodSync(browser, 0o755)
  const opened = await adctl(['open', 'cmp_abc123'], { ...env(), BROWSER: browser })
  assert.equal(opened.code, 0, opened.stderr)
  assert.match(opened.stderr, /^Opened http:\/\/127\.0\.0\.1:8399\/portal\/campaigns\/cmp_abc123 in the browser\./)
  for (let i = 0; i < 50; i++) {
    try {
      if (readFileSync(join(dir, 'opened'), 'utf8') !== '') break
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.equal(readFileSync(join(dir, 'opened'), 'utf8'), 'http://127.0.0.1:8399/portal/campaigns/cmp_abc123')

  const printed = await adctl(['open', 'billing', '--print'], { ...env(), BROWSER: browser })
  assert.equal(printed.stdout, 'http://127.0.0.1:8399/portal/billing\n')
  const noBrowser = await adctl(['open'], env())
  assert.equal(noBrowser.code, 0)
  assert.equal(noBrowser.stdout, 'http://127.0.0.1:8399/portal\n')
  assert.match(noBrowser.stderr, /No browser to open it in/)
  const json = await adctl(['open', 'whe_1', '--print', '--json'], env())
  assert.deepEqual(JSON.parse(json.stdout), { url: 'http://127.0.0.1:8399/portal/webhooks/whe_1', opened: false })
  const typo = await adctl(['open', 'biling'], env())
  assert.equal(typo.code, 2)
  assert.match(typo.stderr, /^adctl: error: <target>: "biling" is not a campaign id .*; did you mean "billing"\?\n/)
})
