import { ApiError } from 'advertiser-campaign-sdk/client'

/** operations.md section 8: what the process's exit code says. */
export const EXIT = {
  done: 0,
  /** The API refused or failed; its detail is on stderr, reason first. */
  api: 1,
  usage: 2,
  /** No credentials, or the API answered 401. */
  credentials: 3,
  /** A verification failed (an export's SHA-256; the ledger). */
  verification: 4,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** A failure the command line itself detected, with the exit code it means. */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
  ) {
    super(message)
  }
}

export const usage = (message: string) => new CliError(EXIT.usage, message)
export const noCredentials = (message: string) => new CliError(EXIT.credentials, message)
export const verificationFailed = (message: string) => new CliError(EXIT.verification, message)

/** The exit code and the stderr lines for anything a command threw. */
export function failure(error: unknown): { code: ExitCode; lines: string[] } {
  if (error instanceof CliError) return { code: error.code, lines: [error.message] }
  if (error instanceof ApiError) {
    const code = error.status === 401 ? EXIT.credentials : EXIT.api
    const detail = error.detail
    const lines =
      typeof detail === 'string'
        ? [`${error.reason ?? (error.status === 0 ? 'no_answer' : `http_${error.status}`)}: ${detail}`]
        : [`${detail.reason}: ${detail.field}`, `detail: ${JSON.stringify(detail)}`]
    if (error.status === 401) lines.push('Log in again with `adctl login`, or check ADCTL_USER_ID and ADCTL_API_KEY.')
    if (error.requestId) lines.push(`request id: ${error.requestId}`)
    return { code, lines }
  }
  return { code: EXIT.api, lines: [error instanceof Error ? error.message : String(error)] }
}
