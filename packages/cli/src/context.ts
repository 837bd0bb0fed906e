import { AdvertiserClient, baseUrlProblem } from 'advertiser-campaign-sdk/client'
import type { Command } from 'commander'
import { apiUrlOf, credentialsPath, isProfileName, profileNameOf, readProfiles, resolveCredentials, type Profile } from './credentials.js'
import { noCredentials, usage } from './exit.js'
import { Output } from './output.js'

/** What a command writes to: process.stdout and process.stderr, or a test's capture. */
export interface Stream {
  write(chunk: string | Uint8Array): boolean
  isTTY?: boolean
}

export interface Io {
  stdout: Stream
  stderr: Stream
  env: NodeJS.ProcessEnv
}

export interface GlobalOptions {
  apiUrl?: string
  profile?: string
  userId?: string
  apiKey?: string
  json?: boolean
  insecureHttp?: boolean
}

/** The service URL of the command running now, for the message of a failure it could not reach. */
export const running: { apiUrl: string | null } = { apiUrl: null }

/** What every command gets: its output, the profile, the client (credentials resolved on first use) and the terminal's questions. */
export class Context {
  readonly out: Output
  readonly apiUrl: string
  #client: AdvertiserClient | undefined

  constructor(
    readonly io: Io,
    readonly options: GlobalOptions,
    /** `--profile`, else ADCTL_PROFILE, else `default`. */
    readonly profileName: string,
    /** The stored login of that name, or null (none, or a damaged file: `storedError`). */
    readonly profile: Profile | null,
    readonly storedError: Error | null = null,
  ) {
    this.out = new Output(Boolean(options.json), io.stdout, io.stderr, io.env)
    this.apiUrl = apiUrlOf(options.apiUrl, io.env, profile)
    running.apiUrl = this.apiUrl
  }

  static async of(command: Command, io: Io): Promise<Context> {
    const options = command.optsWithGlobals<GlobalOptions>()
    const name = profileNameOf(options.profile, io.env)
    if (!isProfileName(name)) throw usage(`--profile: ${JSON.stringify(name)} is not a profile name (letters, digits, ".", "_" and "-", at most 64).`)
    let profile: Profile | null = null
    let storedError: Error | null = null
    try {
      profile = (await readProfiles(credentialsPath(io.env))).get(name) ?? null
    } catch (e) {
      storedError = e instanceof Error ? e : new Error(String(e))
    }
    return new Context(io, options, name, profile, storedError)
  }

  async client(): Promise<AdvertiserClient> {
    if (this.#client) return this.#client
    const { credentials, why } = resolveCredentials({ userId: this.options.userId, apiKey: this.options.apiKey }, this.io.env, this.profile, this.apiUrl)
    if (credentials === null) {
      if (this.storedError) throw noCredentials(this.storedError.message)
      const login = `adctl login${this.profileName === 'default' ? '' : ` --profile ${this.profileName}`}${why ? ` --api-url ${this.apiUrl}` : ''}`
      if (why) throw noCredentials(`No credentials for ${this.apiUrl}: ${why} (profile ${this.profileName}). Run \`${login}\`, or pass --user-id and --api-key.`)
      throw noCredentials(`No credentials${this.profileName === 'default' ? '' : ` in profile ${this.profileName}`}: run \`${login}\`, set ADCTL_USER_ID and ADCTL_API_KEY, or pass --user-id and --api-key.`)
    }
    this.#client = this.clientFor(credentials.userId, credentials.apiKey)
    return this.#client
  }

  /** A client of the service; plain http to a host that is not loopback needs --insecure-http (exit 2, nothing sent). */
  clientFor(userId: string, apiKey: string): AdvertiserClient {
    this.checkApiUrl()
    return new AdvertiserClient({ baseUrl: this.apiUrl, userId, apiKey, userAgent: 'adctl/0.1.0', allowInsecureHttp: Boolean(this.options.insecureHttp) })
  }

  /** Throws the usage error (exit 2) for a service URL credentials may not go to: checked before anything is asked or sent. */
  checkApiUrl(): void {
    const problem = baseUrlProblem(this.apiUrl, Boolean(this.options.insecureHttp), '--insecure-http')
    if (problem !== null) throw usage(`${problem}.`)
  }

  /**
   * `--dry-run`: prints the request a write would send (method, URL, JSON body; never the key) and
   * sends nothing. With --json, `{ "dry_run": true, "request": { method, url, body } }` on stdout.
   */
  dryRun(method: string, path: string, body?: unknown): void {
    this.checkApiUrl()
    const url = `${this.apiUrl.replace(/\/+$/, '').replace(/\/v1$/, '')}/v1${path}`
    this.out.data({ dry_run: true, request: { method, url, ...(body === undefined ? {} : { body }) } })
    this.out.line(`Dry run: nothing was sent. Without --dry-run adctl would send:`)
    this.out.line(`${method} ${url}`)
    if (body !== undefined) this.out.line(JSON.stringify(body, null, 2))
  }

  /** Asks yes/no on the terminal; without one, `--yes` is required (exit 2 otherwise). */
  async confirm(question: string, yes: boolean | undefined): Promise<boolean> {
    if (yes) return true
    if (!this.out.interactive) throw usage(`${question} Pass --yes to go ahead without a terminal to ask on.`)
    const { default: confirm } = await import('@inquirer/confirm')
    return confirm({ message: question, default: false }, { output: process.stderr })
  }

  /** Asks for a value on the terminal (hidden for secrets); without one it is a usage error naming the flag. */
  async ask(message: string, flag: string, secret = false): Promise<string> {
    if (!this.out.interactive) throw usage(`${flag} is required when there is no terminal to ask on.`)
    const validate = (v: string) => (v.trim() === '' ? 'required' : true)
    if (secret) {
      const { default: password } = await import('@inquirer/password')
      return (await password({ message, mask: '*', validate }, { output: process.stderr })).trim()
    }
    const { default: input } = await import('@inquirer/input')
    return (await input({ message, validate }, { output: process.stderr })).trim()
  }
}
