// @ts-check
/**
 * The terminal's Privacy Pass wallet (issue 48; the rules are ad-client's wallet.js): with an attester
 * set (THINKING_LINE_ATTEST_COMMAND prints a JWT, or THINKING_LINE_ATTEST_TOKEN is one), the refresher
 * keeps it in the state directory (`wallet.json`, mode 0600), read and written under the state lock,
 * so two refreshers never hand out one token twice.
 *
 * Only the refresher imports this module, and ad-client's wallet imports the Privacy Pass library
 * dynamically, only when it is needed: an invocation still loads nothing but Node's standard library.
 */
import { commandJwt, noteChallenge as noteIn, parseWallet, takeToken as takeFrom, topUp as topUpIn } from '@thinking-line/ad-client/wallet'
import { paths, readJson, withStateLock, writeAtomic } from './state.js'

export { TOKENS_PER_RUN, WALLET_LOW, WALLET_MAX } from '@thinking-line/ad-client/wallet'

/** How long the refresher waits for the state lock around a wallet update. */
const LOCK_WAIT_MS = 1_000

/** @typedef {{ kind: 'command', command: string } | { kind: 'token', jwt: string }} Attester */

/**
 * The attester set in the environment, or null (then nothing here runs). The command wins over a
 * fixed token when both are set: it can hand out a fresh JWT when the last one expired.
 * @param {NodeJS.ProcessEnv} env @returns {Attester | null}
 */
export function attester(env) {
  const command = (env.THINKING_LINE_ATTEST_COMMAND ?? '').trim()
  if (command) return { kind: 'command', command }
  const jwt = (env.THINKING_LINE_ATTEST_TOKEN ?? '').trim()
  return jwt ? { kind: 'token', jwt } : null
}

/**
 * The wallet in `dir`: `wallet.json` (mode 0600), updated under the state lock.
 * @param {string} dir @param {() => number} clock @returns {import('@thinking-line/ad-client/wallet').WalletStore}
 */
export function fileWallet(dir, clock) {
  const path = paths(dir).wallet
  return {
    read: () => readJson(path),
    update: (fn) =>
      withStateLock(
        dir,
        LOCK_WAIT_MS,
        () => {
          const { wallet, result } = fn(readJson(path))
          if (wallet) writeAtomic(path, JSON.stringify(wallet), 0o600)
          return result
        },
        clock,
      ),
  }
}

/** The wallet on disk, or an empty one. @param {string} dir */
export const readWallet = (dir) => parseWallet(readJson(paths(dir).wallet))

/** @param {string} dir @param {string} header @param {() => number} clock */
export const noteChallenge = (dir, header, clock) => noteIn(fileWallet(dir, clock), header)

/** @param {string} dir @param {() => number} clock */
export const takeToken = (dir, clock) => takeFrom(fileWallet(dir, clock))

/**
 * One refresher run's share of filling the wallet (ad-client's topUp), when an attester is set.
 * @param {string} dir @param {NodeJS.ProcessEnv} env @param {string} baseUrl @param {() => number} clock @param {number} timeoutMs
 */
export async function topUp(dir, env, baseUrl, clock, timeoutMs) {
  const who = attester(env)
  if (!who) return { minted: 0, outcome: /** @type {const} */ ('idle') }
  const jwt = who.kind === 'token' ? async () => who.jwt : () => commandJwt(who.command)
  return topUpIn(fileWallet(dir, clock), jwt, baseUrl, clock, timeoutMs)
}
