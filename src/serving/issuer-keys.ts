import { createHash, type KeyObject } from 'node:crypto'
import { keyPeriodOf, keyWindow, redeemsAt, type PresentedToken } from '../domain/attestation.ts'
import { utcDay } from '../domain/clicks.ts'
import type { Clock } from '../platform/clock.ts'
import {
  BlindSigner,
  generateIssuerKey,
  parseToken,
  signatureValid,
  tokenChallenge,
  verifierKey,
  tokenKeyId,
  wwwAuthenticate,
} from '../platform/privacy-pass.ts'
import type { SecretSealer } from '../platform/secret-sealing.ts'
import type { Db } from '../store/db.ts'
import { insertIssuerKey, pruneAttestation, readIssuerKeys, type IssuerKeyRow } from '../store/privacy-pass.ts'

/**
 * The Privacy Pass issuer's keys as one instance holds them (docs/attestation.md): one RSA 2048 key
 * per period of PRIVACY_PASS_KEY_DAYS, created by the first instance that needs it and shared
 * through the store (its private key sealed under the key-sealing ring), issuing during its period
 * and redeeming for one period more. Redemption checks a token against the keys held in memory, so a
 * view pays one RSA-PSS verification (about 30 µs) and no store read; a token naming a key this
 * instance does not hold makes it read the keys again first (at most once per RELOAD_MS).
 */

/** Real time between two reads of the keys prompted by a token of an unknown key. */
const RELOAD_MS = 5_000
/** How long before its period the next key is made (service time). */
const PREPARE_AHEAD_MS = 86_400_000

interface HeldKey {
  row: IssuerKeyRow
  keyId: Buffer
  verifier: KeyObject
  signer: BlindSigner | null
}

export class IssuerKeys {
  readonly #db: Db
  readonly #clock: Clock
  readonly #sealer: SecretSealer
  readonly #days: number
  /** The deployment's challenge (RFC 9577), and its SHA-256 as a token carries it. */
  readonly challenge: Buffer
  readonly #challengeDigest: Buffer
  #keys: HeldKey[] = []
  #loading: Promise<void> | null = null
  #preparing: Promise<void> | null = null
  #loadedAt = -Infinity

  constructor(db: Db, clock: Clock, sealer: SecretSealer, days: number, issuerName: string) {
    this.#db = db
    this.#clock = clock
    this.#sealer = sealer
    this.#days = days
    this.challenge = tokenChallenge(issuerName)
    this.#challengeDigest = createHash('sha256').update(this.challenge).digest()
  }

  /** The key issuing now, created (and the expired upkeep done) when its period has none yet. */
  async issuing(): Promise<{ signer: BlindSigner; row: IssuerKeyRow }> {
    const nowMs = this.#clock.nowMs()
    const period = keyPeriodOf(nowMs, this.#days)
    let held = this.#keys.find((k) => k.row.period === period)
    if (!held) {
      await this.#ensure(period)
      held = this.#keys.find((k) => k.row.period === period)
    }
    if (!held) throw new Error(`no issuer key for period ${period}`)
    held.signer ??= new BlindSigner({ tokenKey: held.row.token_key, privateKey: this.#open(held.row) })
    return { signer: held.signer, row: held.row }
  }

  /** The keys a client may hold tokens of now (the issuer directory): still redeeming, newest first. */
  async published(): Promise<IssuerKeyRow[]> {
    await this.issuing()
    const nowMs = this.#clock.nowMs()
    return this.#keys.filter((k) => redeemsAt(windowOf(k.row), nowMs)).map((k) => k.row)
  }

  /**
   * `WWW-Authenticate` for a decision: the challenge and the issuing key, from memory; never a wait on
   * the store or on key generation. While this instance holds no key of the current period (just
   * started, or the period just turned) it answers null and has the key read, or made, in the
   * background (`prepare`); the decisions after that carry it.
   */
  challengeHeader(): string | null {
    const nowMs = this.#clock.nowMs()
    const period = keyPeriodOf(nowMs, this.#days)
    const held = this.#keys.find((k) => k.row.period === period)
    // The next period's key is made a day ahead, so that the turn finds it in the store.
    const nextSoon = keyWindow(period, this.#days).issueUntilMs - nowMs < PREPARE_AHEAD_MS && !this.#keys.some((k) => k.row.period === period + 1)
    if (!held || nextSoon) this.prepare()
    return held ? wwwAuthenticate(this.challenge, held.row.token_key) : null
  }

  /** Has the current period's key (and, near the turn, the next one's) read or made, in the background. */
  prepare(): void {
    if (this.#preparing) return
    const period = keyPeriodOf(this.#clock.nowMs(), this.#days)
    this.#preparing = this.#ensure(period)
      .then(() => (keyWindow(period, this.#days).issueUntilMs - this.#clock.nowMs() < PREPARE_AHEAD_MS ? this.#ensure(period + 1) : undefined))
      .catch(() => undefined)
      .finally(() => {
        this.#preparing = null
      })
  }

  /**
   * What a view's token is: well formed, for this deployment's challenge, of a key that redeems now,
   * and signed by it (`valid`, with its nonce), or `invalid`. Whether it was spent is the ledger's to say.
   */
  async check(bytes: Buffer): Promise<PresentedToken> {
    const token = parseToken(bytes)
    if (!token || !token.challengeDigest.equals(this.#challengeDigest)) return { kind: 'invalid' }
    let held = this.#keys.find((k) => k.keyId.equals(token.keyId))
    if (!held && performance.now() - this.#loadedAt >= RELOAD_MS) {
      await this.#load().catch(() => undefined)
      held = this.#keys.find((k) => k.keyId.equals(token.keyId))
    }
    if (!held || !redeemsAt(windowOf(held.row), this.#clock.nowMs())) return { kind: 'invalid' }
    return signatureValid(token, held.verifier) ? { kind: 'valid', nonce: token.nonce.toString('hex') } : { kind: 'invalid' }
  }

  #open(row: IssuerKeyRow): Buffer {
    const opened = this.#sealer.open(row.private_key_sealed, sealContext(row.period))
    if (opened === null) throw new Error(`the issuer key of period ${row.period} does not open with this instance's key-sealing ring`)
    return Buffer.from(opened, 'hex')
  }

  async #ensure(period: number): Promise<void> {
    await this.#load()
    if (this.#keys.some((k) => k.row.period === period)) return
    const pair = await generateIssuerKey()
    const window = keyWindow(period, this.#days)
    await insertIssuerKey(this.#db, {
      period,
      token_key_id: tokenKeyId(pair.tokenKey),
      token_key: pair.tokenKey,
      private_key_sealed: this.#sealer.seal(pair.privateKey.toString('hex'), sealContext(period)),
      not_before: new Date(window.notBeforeMs),
      issue_until: new Date(window.issueUntilMs),
      redeem_until: new Date(window.redeemUntilMs),
    })
    const now = this.#clock.now()
    await pruneAttestation(this.#db, now, utcDay(now.getTime()))
    await this.#load()
  }

  #load(): Promise<void> {
    this.#loading ??= readIssuerKeys(this.#db, this.#clock.now())
      .then((rows) => {
        const before = new Map(this.#keys.map((k) => [k.row.period, k]))
        this.#keys = rows.map((row) => before.get(row.period) ?? { row, keyId: row.token_key_id, verifier: verifierKey(row.token_key), signer: null })
        this.#loadedAt = performance.now()
      })
      .finally(() => {
        this.#loading = null
      })
    return this.#loading
  }
}

const windowOf = (row: Pick<IssuerKeyRow, 'not_before' | 'redeem_until'>) => ({ notBeforeMs: row.not_before.getTime(), redeemUntilMs: row.redeem_until.getTime() })
/** A sealed private key opens only on its own period's row. */
const sealContext = (period: number) => `privacy_pass_key:${period}`
