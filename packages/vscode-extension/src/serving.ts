/**
 * The service as the controller uses it (its `Service` port), built from the client core's calls,
 * with no `vscode` import: decisions, the view reports' once-only delivery and, with an attester,
 * the Privacy Pass wallet. extension.ts gives it VS Code's settings and state through ports; the
 * tests give it a fake clock and a real service (test/attested.test.ts).
 *
 * Attested views (operations.md sections 2 and 9): the attester is an assistant's `setAttester(fn)`
 * (a fresh JWT per call) or else the `thinkingLine.attestCommand` setting. The challenge and issuer
 * key come from decisions' `WWW-Authenticate`; the last one seen is kept, so an attester handed over
 * while an offer is already in hand fills the wallet at once, not only at the next decision. Tokens
 * are fetched in batches ahead of use (ad-client's wallet.js), taken out of the wallet before the
 * billable report that spends them is sent, and stay with that report through its retries.
 */
import { baseUrl, countryCode, decisionBody, reportView, requestDecision } from '@thinking-line/ad-client/http'
import { deliverReports, type memoryQueue } from '@thinking-line/ad-client/reports'
import { clearBackoff, commandJwt, looksLikeJwt, noteChallenge, takeToken, topUp, type WalletStore } from '@thinking-line/ad-client/wallet'
import type { Fetched, Service } from './controller.ts'

/** Each request's bound: a slow service hides the item, it never holds anything up. */
export const REQUEST_TIMEOUT_MS = 2_000
export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8080'

/** The settings this part reads (at each use: they change while the window is open). */
export interface ServingSettings {
  serviceUrl: string
  country: string
  attestCommand: string
}

export interface ServingPorts {
  settings(): ServingSettings
  /** The install's random viewer id. */
  viewerId(): string
  /** The topic names to send (none when the setting is off or nothing matched). */
  topics(): string[]
  now(): number
  sleep(ms: number): Promise<void>
  /** The view reports still owed (the caller keeps them across restarts). */
  queue: ReturnType<typeof memoryQueue>
  /** Where the Privacy Pass tokens are kept (the extension: this window's memory). */
  wallet: WalletStore
  /** Each request's bound (REQUEST_TIMEOUT_MS unless a test says otherwise). */
  timeoutMs?: number
}

export interface Serving extends Service {
  /** Hands over (or, with null, takes back) an assistant's attester: a function answering a fresh JWT. */
  setAttester(fn: (() => Promise<string>) | null): void
  /** The attester changed (setAttester, or the attestCommand setting): fill the wallet now if a challenge is known. */
  attesterChanged(): void
  /** Settles when the wallet filling under way (if any) is done: for tests and troubleshooting. */
  walletIdle(): Promise<void>
}

export function createServing(ports: ServingPorts): Serving {
  const timeoutMs = ports.timeoutMs ?? REQUEST_TIMEOUT_MS
  const service = () => baseUrl(ports.settings().serviceUrl.trim() || DEFAULT_SERVICE_URL)
  let attester: (() => Promise<string>) | null = null
  /** The last decision's WWW-Authenticate (the challenge and issuer key), whoever the attester. */
  let challenge: string | null = null
  let lastBillable: number | null = null
  let filling: Promise<void> | null = null

  const attestCommand = () => ports.settings().attestCommand.trim()
  const attested = () => attester !== null || attestCommand() !== ''
  /** The attester's JWT: the assistant's first, else the command's; null when none could be had. */
  const attesterJwt = async (): Promise<string | null> => {
    if (attester) {
      const jwt: unknown = await attester()
      const text = typeof jwt === 'string' ? jwt.trim() : ''
      return looksLikeJwt(text) ? text : null
    }
    const command = attestCommand()
    return command ? commandJwt(command) : null
  }

  /** One run of filling the wallet (at most one at a time); failures only leave views without a token. */
  const fill = () => {
    if (filling || challenge === null || !attested()) return
    const header = challenge
    filling = (async () => {
      try {
        await noteChallenge(ports.wallet, header)
        await topUp(ports.wallet, attesterJwt, service(), ports.now, timeoutMs)
      } catch {
        // Views go without a token meanwhile.
      } finally {
        filling = null
      }
    })()
  }

  const attesterChanged = () => {
    if (!attested()) return
    // A new attester gets a fresh try: the back-off its predecessor earned (a refused JWT, none given) ends.
    clearBackoff(ports.wallet)
    fill()
  }

  return {
    async fetchOffer(): Promise<Fetched> {
      try {
        const { country } = ports.settings()
        const body = decisionBody({ surface: 'extension', viewerId: ports.viewerId(), topics: ports.topics(), country: countryCode(country) })
        const res = await requestDecision(service(), body, timeoutMs)
        if (res.status === 204) return { kind: 'none' }
        if (!res.decision) return { kind: 'failed' }
        if (res.challenge) {
          challenge = res.challenge
          fill()
        }
        return { kind: 'ad', decision: res.decision, topics: res.body.topics ?? [] }
      } catch {
        return { kind: 'failed' }
      }
    },
    queue: (report) => void ports.queue.add(report),
    pending: () => ports.queue.size(),
    async deliver() {
      try {
        return await deliverReports({
          claims: ports.queue.claims(),
          lastBillable: { get: () => lastBillable, set: (at) => void (lastBillable = at) },
          takeToken: attested() ? () => takeToken(ports.wallet) : null,
          send: (report, token) => reportView(service(), report.impression_id, report.dwell_ms, token, timeoutMs),
          clock: ports.now,
          sleep: ports.sleep,
        })
      } catch {
        return { failed: true }
      }
    },
    setAttester(fn) {
      attester = fn
      attesterChanged()
    },
    attesterChanged,
    walletIdle: () => filling ?? Promise.resolve(),
  }
}
