import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

export interface Credentials {
  userId: string
  apiKey: string
}

export const DEFAULT_API_URL = 'http://127.0.0.1:8080'

/** `$XDG_CONFIG_HOME/adctl/credentials.json`, else `~/.config/adctl/credentials.json`. */
export function credentialsPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return join(base, 'adctl', 'credentials.json')
}

/** The stored credentials, or null when there are none (a damaged file counts as none, and says so). */
export async function readStored(path: string): Promise<Credentials | null> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    return null
  }
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === 'object' && parsed !== null && 'user_id' in parsed && 'api_key' in parsed) {
      const { user_id, api_key } = parsed
      if (typeof user_id === 'string' && typeof api_key === 'string') return { userId: user_id, apiKey: api_key }
    }
  } catch {
    // fall through
  }
  throw new Error(`${path} is not a credentials file adctl wrote: run \`adctl login\` again`)
}

/** Writes the file with mode 0600 in a directory of mode 0700 (a file left by an older version is narrowed too). */
export async function store(path: string, c: Credentials): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  await writeFile(path, `${JSON.stringify({ user_id: c.userId, api_key: c.apiKey }, null, 2)}\n`, { mode: 0o600 })
  await chmod(path, 0o600)
}

export async function forget(path: string): Promise<boolean> {
  try {
    await rm(path)
    return true
  } catch {
    return false
  }
}

/** Flags first, then ADCTL_USER_ID/ADCTL_API_KEY, then what `adctl login` stored. */
export async function resolveCredentials(flags: { userId?: string; apiKey?: string }, env: NodeJS.ProcessEnv): Promise<Credentials | null> {
  const userId = flags.userId ?? env.ADCTL_USER_ID
  const apiKey = flags.apiKey ?? env.ADCTL_API_KEY
  if (userId && apiKey) return { userId, apiKey }
  const stored = await readStored(credentialsPath(env))
  if (stored === null) return null
  return { userId: userId ?? stored.userId, apiKey: apiKey ?? stored.apiKey }
}

export const apiUrlOf = (flag: string | undefined, env: NodeJS.ProcessEnv) => flag ?? env.ADCTL_API_URL ?? DEFAULT_API_URL
