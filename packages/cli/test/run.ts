/** Runs the real `adctl` binary (packages/cli/bin/adctl.js, built into dist by `npm install`) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../bin/adctl.js', import.meta.url))

export interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** A config directory of its own (XDG_CONFIG_HOME), so a test's login is never another's. */
export const freshConfigHome = () => mkdtempSync(join(tmpdir(), 'adctl-test-'))

export function start(args: string[], env: Record<string, string>): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (s: string) => (stdout += s))
  child.stderr?.setEncoding('utf8').on('data', (s: string) => (stderr += s))
  const done = new Promise<Run>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })))
  return { child, done }
}

export const adctl = (args: string[], env: Record<string, string>): Promise<Run> => start(args, env).done
