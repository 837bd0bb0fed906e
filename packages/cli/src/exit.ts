import { ApiError } from 'advertiser-campaign-sdk/client'
import { flagOf, ruleInWords } from './problems.js'

/** operations.md section 8: what the process's exit code says. */
export const EXIT = {
  done: 0,
  /** The API refused or failed; its detail is on stderr, the flag and the rule first. */
  api: 1,
  usage: 2,
  /** No credentials, or the API answered 401. */
  credentials: 3,
  /** A verification failed (an export's SHA-256; the ledger). */
  verification: 4,
  /** The service could not be reached (no answer at all: refused connection, unknown host, timeout). */
  unreachable: 5,
} as const

export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/** One thing wrong with what was typed: the flag (or argument) at fault and the rule, in words. */
export interface Problem {
  /** `--cpm`, `<campaign_id>`, or null when no single flag is at fault. */
  flag: string | null
  message: string
  /** The API's field and reason, when the API (or the check standing in for it) named them. */
  field?: string
  reason?: string
}

/** A failure the command line itself detected, with the exit code it means and, for bad flags, each problem. */
export class CliError extends Error {
  constructor(
    readonly code: ExitCode,
    message: string,
    readonly problems: Problem[] = [],
    readonly reason: string | null = null,
  ) {
    super(message)
  }
}

export const usage = (message: string) => new CliError(EXIT.usage, message, [], 'usage')
export const noCredentials = (message: string) => new CliError(EXIT.credentials, message, [], 'no_credentials')
export const verificationFailed = (message: string) => new CliError(EXIT.verification, message, [], 'verification_failed')
/** Every problem of a command line at once (exit 2), each `--flag: rule`. */
export const badFlags = (problems: Problem[]) => new CliError(EXIT.usage, problems.map(problemLine).join('\n'), problems, 'invalid_flags')

const problemLine = (p: Problem) => (p.flag === null ? p.message : `${p.flag}: ${p.message}`)

/** What a failure prints: its exit code, its lines (each printed after `adctl: error: `) and, for --json, one document. */
export interface Failure {
  code: ExitCode
  lines: string[]
  json: { error: { exit_code: ExitCode; reason: string | null; message: string; status?: number; detail?: unknown; problems?: Problem[]; request_id?: string | null } }
}

/** The exit code, the stderr lines and the JSON of anything a command threw; `command` is the command path (`campaigns create`). */
export function failure(error: unknown, command: string, serviceUrl: string): Failure {
  if (error instanceof CliError) {
    const lines = error.message.split('\n')
    return { code: error.code, lines, json: { error: { exit_code: error.code, reason: error.reason, message: lines.join(' '), ...(error.problems.length ? { problems: error.problems } : {}) } } }
  }
  if (error instanceof ApiError) return apiFailure(error, command, serviceUrl)
  const message = error instanceof Error ? error.message : String(error)
  return { code: EXIT.api, lines: message.split('\n'), json: { error: { exit_code: EXIT.api, reason: null, message } } }
}

function apiFailure(error: ApiError, command: string, serviceUrl: string): Failure {
  const detail = error.detail
  const base = { status: error.status, detail, request_id: error.requestId }
  const requestId = error.requestId ? [`request id: ${error.requestId}`] : []
  if (error.status === 0) {
    const lines = [`the service did not answer (${error.reason}): ${String(detail)}`, `Is it running at ${serviceUrl}? The URL comes from --api-url, else ADCTL_API_URL, else the profile \`adctl login\` stored.`]
    return { code: EXIT.unreachable, lines, json: { error: { exit_code: EXIT.unreachable, reason: error.reason, message: lines[0]!, ...base } } }
  }
  if (typeof detail === 'string') {
    const code = error.status === 401 ? EXIT.credentials : EXIT.api
    const lines = [`${detail} (HTTP ${error.status}, ${error.reason})`]
    if (error.status === 401) lines.push('Log in again with `adctl login`, or check ADCTL_USER_ID and ADCTL_API_KEY.')
    if (error.retryAfterS !== null) lines.push(`The service asks to wait ${error.retryAfterS} s before trying again.`)
    return { code, lines: [...lines, ...requestId], json: { error: { exit_code: code, reason: error.reason, message: lines[0]!, ...base } } }
  }
  const flag = flagOf(command, detail.field)
  const problem: Problem = { flag, message: ruleInWords(detail, flag), field: detail.field, reason: detail.reason }
  const lines = [`${problemLine(problem)} (${detail.reason})`, ...requestId]
  return { code: EXIT.api, lines, json: { error: { exit_code: EXIT.api, reason: error.reason, message: problemLine(problem), problems: [problem], ...base } } }
}
