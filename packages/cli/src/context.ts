import { AdvertiserClient, baseUrlProblem } from 'advertiser-campaign-sdk/client'
import type { Command } from 'commander'
import { apiUrlOf, resolveCredentials } from './credentials.js'
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
  userId?: string
  apiKey?: string
  json?: boolean
  insecureHttp?: boolean
}

/** What every command gets: its output, the client (credentials resolved on first use) and the terminal's questions. */
export class Context {
  readonly out: Output
  readonly apiUrl: string
  #client: AdvertiserClient | undefined

  constructor(
    readonly io: Io,
    readonly options: GlobalOptions,
  ) {
    this.out = new Output(Boolean(options.json), io.stdout, io.stderr, io.env)
    this.apiUrl = apiUrlOf(options.apiUrl, io.env)
  }

  static of(command: Command, io: Io): Context {
    return new Context(io, command.optsWithGlobals<GlobalOptions>())
  }

  async client(): Promise<AdvertiserClient> {
    if (this.#client) return this.#client
    const credentials = await resolveCredentials({ userId: this.options.userId, apiKey: this.options.apiKey }, this.io.env)
    if (credentials === null) throw noCredentials('No credentials: run `adctl login`, set ADCTL_USER_ID and ADCTL_API_KEY, or pass --user-id and --api-key.')
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
