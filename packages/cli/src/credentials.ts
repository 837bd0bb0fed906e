import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

export interface Credentials {
  userId: string
  apiKey: string
}

/** One stored login: the service it was checked against, and the credentials. */
export interface Profile extends Credentials {
  /** Null for a login stored by adctl 0.1 (before URLs were stored): it goes wherever the URL says. */
  apiUrl: string | null
}

export const DEFAULT_API_URL = 'http://127.0.0.1:8080'
export const DEFAULT_PROFILE = 'default'

/** `$XDG_CONFIG_HOME/adctl/credentials.json`, else `~/.config/adctl/credentials.json`. */
export function credentialsPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config')
  return join(base, 'adctl', 'credentials.json')
}

/** `--profile`, else ADCTL_PROFILE, else `default`. */
export const profileNameOf = (flag: string | undefined, env: NodeJS.ProcessEnv) => flag ?? (env.ADCTL_PROFILE || DEFAULT_PROFILE)

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
export const isProfileName = (name: string) => PROFILE_NAME.test(name)

const damaged = (path: string) => new Error(`${path} is not a credentials file adctl wrote: run \`adctl login\` again`)

function profileOf(value: unknown): Profile | null {
  if (typeof value !== 'object' || value === null || !('user_id' in value) || !('api_key' in value)) return null
  const { user_id, api_key } = value
  const api_url = 'api_url' in value ? value.api_url : null
  if (typeof user_id !== 'string' || typeof api_key !== 'string' || (api_url !== null && typeof api_url !== 'string')) return null
  return { userId: user_id, apiKey: api_key, apiUrl: api_url }
}

/**
 * Every stored profile by name; empty when there is no file. The file is
 * `{ "profiles": { name: { api_url, user_id, api_key } } }`; adctl 0.1's `{ user_id, api_key }`
 * reads as the profile `default` without a URL. A damaged file throws, saying so.
 */
export async function readProfiles(path: string): Promise<Map<string, Profile>> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    return new Map()
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw damaged(path)
  }
  const legacy = profileOf(parsed)
  if (legacy) return new Map([[DEFAULT_PROFILE, legacy]])
  if (typeof parsed !== 'object' || parsed === null || !('profiles' in parsed) || typeof parsed.profiles !== 'object' || parsed.profiles === null) throw damaged(path)
  const profiles = new Map<string, Profile>()
  for (const [name, value] of Object.entries(parsed.profiles)) {
    const p = profileOf(value)
    if (p === null) throw damaged(path)
    profiles.set(name, p)
  }
  return profiles
}

/** Writes the file with mode 0600 in a directory of mode 0700 (a file left by an older version is narrowed too); no profile left removes it. */
async function writeProfiles(path: string, profiles: Map<string, Profile>): Promise<void> {
  if (profiles.size === 0) {
    await rm(path, { force: true })
    return
  }
  const body = Object.fromEntries([...profiles].map(([name, p]) => [name, { api_url: p.apiUrl, user_id: p.userId, api_key: p.apiKey }]))
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  await writeFile(path, `${JSON.stringify({ profiles: body }, null, 2)}\n`, { mode: 0o600 })
  await chmod(path, 0o600)
}

export async function storeProfile(path: string, name: string, profile: Profile): Promise<void> {
  const profiles = await readProfiles(path).catch(() => new Map<string, Profile>())
  profiles.set(name, profile)
  await writeProfiles(path, profiles)
}

/** Forgets one profile; false when there was none of that name. */
export async function forgetProfile(path: string, name: string): Promise<boolean> {
  const profiles = await readProfiles(path).catch(() => null)
  if (profiles === null) {
    await rm(path, { force: true })
    return true
  }
  if (!profiles.delete(name)) return false
  await writeProfiles(path, profiles)
  return true
}

/** The origin of a URL, or the URL itself when it does not parse (the check of the URL comes later and says why). */
const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}
export const sameService = (a: string, b: string) => originOf(a) === originOf(b)

/** `--api-url`, else ADCTL_API_URL, else the profile's stored URL, else the default. */
export const apiUrlOf = (flag: string | undefined, env: NodeJS.ProcessEnv, profile: Profile | null) => flag ?? env.ADCTL_API_URL ?? profile?.apiUrl ?? DEFAULT_API_URL

/**
 * Flags first, then ADCTL_USER_ID/ADCTL_API_KEY, then the profile. A stored key goes only to the
 * service it was stored for: to another URL it is not used (the answer is null, and `why` says so).
 */
export function resolveCredentials(flags: { userId?: string; apiKey?: string }, env: NodeJS.ProcessEnv, profile: Profile | null, apiUrl: string): { credentials: Credentials | null; why: string | null } {
  const userId = flags.userId ?? env.ADCTL_USER_ID
  const apiKey = flags.apiKey ?? env.ADCTL_API_KEY
  if (userId && apiKey) return { credentials: { userId, apiKey }, why: null }
  if (profile === null) return { credentials: null, why: null }
  if (profile.apiUrl !== null && !sameService(profile.apiUrl, apiUrl)) {
    return { credentials: null, why: `the stored login is for ${profile.apiUrl}, not ${apiUrl}` }
  }
  return { credentials: { userId: userId ?? profile.userId, apiKey: apiKey ?? profile.apiKey }, why: null }
}
