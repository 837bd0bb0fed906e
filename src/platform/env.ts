/**
 * Start-up settings from the environment, validated once. A bad value stops
 * start-up with a message naming the variable (operations.md section 1).
 */
import { readFileSync } from 'node:fs'

/** What an instance runs (docs/decisions/0061-role-web-worker-all-default-all.md): HTTP, the jobs, or both. */
export type Role = 'all' | 'web' | 'worker'

export interface Settings {
  role: Role
  port: number
  host: string
  databaseUrl: string | null
  /** DATABASE_READ_URL: a streaming replica of DATABASE_URL for lag-tolerant reads (docs/decisions/0347-which-reads-read-replica.md); null: none. */
  databaseReadUrl: string | null
  /** READ_REPLICA_MAX_LAG_MS: lag-tolerant reads go to the replica only while it is at most this far behind the primary. */
  readReplicaMaxLagMs: number
  dataDir: string
  publicUrl: string
  adminToken: string | null
  clock: 'system' | 'manual'
  clockStart: Date | null
  redisUrl: string | null
  /** Where email goes out (smtp:// or smtps://); null: kept in the outbox only. */
  smtpUrl: string | null
  logLevel: string
  /** LOG_FORMAT: `pretty` (pino-pretty), `json`, or `auto`: pretty when stdout is a terminal, else JSON. */
  logFormat: 'auto' | 'pretty' | 'json'
  /** Reverse proxies in front of the service: the client address is that many X-Forwarded-For entries from the right; 0: the socket's. */
  trustProxy: number
  /** Keys sealing impression ids, the first one current; null: the key kept in the store. */
  offerKeys: KeyRing | null
  /** Keys sealing the recoverable copy of API keys (the portal's "Reveal"), the first one current; null: the key kept in the store. */
  keySealingKeys: KeyRing | null
  /** NODE_ENV=production: the sealing keys must come from outside the database (else start-up is refused). */
  production: boolean
  /** How long start-up keeps retrying an unreachable PostgreSQL before it gives up (0: one attempt). */
  startupTimeoutSeconds: number
  /** After SIGTERM/SIGINT, how long a web instance keeps serving (with /readyz at 503) before it closes its listener. */
  shutdownDrainSeconds: number
  /** WEBHOOKS_ALLOW_LOOPBACK: webhook endpoints may be http(s)://127.0.0.1, localhost or [::1] (tests and local development only). */
  webhooksAllowLoopback: boolean
  /** LEDGER_RETENTION_DAYS (default 400): a ledger partition whose days are all rolled up and older than this is dropped (the ledger-partitions job). */
  ledgerRetentionDays: number
  /** Who vouches for the users that Privacy Pass tokens are issued to (docs/attestation.md); null: no attester, no tokens issued. */
  attester: AttesterSettings | null
  /** PRIVACY_PASS_KEY_DAYS (default 30): each issuer key issues for this many days and redeems for as many more. */
  privacyPassKeyDays: number
}

/**
 * ATTESTER=dev: the service's own development attester (`POST /dev/attest`), refused with NODE_ENV=production.
 * Else ATTESTER_JWKS_URL or ATTESTER_JWKS_FILE, with ATTESTER_ISSUER and ATTESTER_AUDIENCE: the coding tool's sign-in.
 */
export type AttesterSettings = { kind: 'dev' } | { kind: 'jwks'; jwksUrl: string | null; jwksFile: string | null; issuer: string; audience: string }

/** AES-256 keys with a one-byte id; the first seals, all open (rotation). */
export type KeyRing = { id: number; key: Buffer }[]

export class SettingsError extends Error {}

function fail(name: string, why: string): never {
  throw new SettingsError(`${name}: ${why}`)
}

function stripTrailingSlash(url: string): string {
  return url.endsWith('/') ? url.slice(0, -1) : url
}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const value = (name: string): string | null => {
    const v = env[name]
    return v === undefined || v.trim() === '' ? null : v.trim()
  }

  const role = value('ROLE') ?? 'all'
  if (role !== 'all' && role !== 'web' && role !== 'worker') fail('ROLE', `must be "web", "worker" or "all", got "${role}"`)

  const portRaw = value('PORT') ?? '8080'
  if (!/^\d+$/.test(portRaw) || Number(portRaw) > 65535) fail('PORT', `must be an integer 0-65535, got "${portRaw}"`)
  const port = Number(portRaw)
  const host = value('HOST') ?? '127.0.0.1'

  const databaseUrl = value('DATABASE_URL')
  if (databaseUrl !== null && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    fail('DATABASE_URL', 'must start with postgres:// or postgresql://')
  }
  // The embedded store is one process's: split roles need a PostgreSQL both can open.
  if (role !== 'all' && databaseUrl === null) {
    fail('ROLE', `ROLE=${role} needs DATABASE_URL (PostgreSQL): the embedded store belongs to one process, which runs ROLE=all`)
  }

  const databaseReadUrl = value('DATABASE_READ_URL')
  if (databaseReadUrl !== null && !/^postgres(ql)?:\/\//.test(databaseReadUrl)) {
    fail('DATABASE_READ_URL', 'must start with postgres:// or postgresql://')
  }
  // The embedded store has no replica: a read URL alone would read another database than the one written.
  if (databaseReadUrl !== null && databaseUrl === null) {
    fail('DATABASE_READ_URL', 'needs DATABASE_URL: a read replica is a standby of the PostgreSQL primary, and the embedded store has none')
  }
  const maxLagRaw = value('READ_REPLICA_MAX_LAG_MS')
  if (maxLagRaw !== null && (!/^\d+$/.test(maxLagRaw) || Number(maxLagRaw) < 2000 || Number(maxLagRaw) > 3_600_000)) {
    fail('READ_REPLICA_MAX_LAG_MS', `must be a whole number of milliseconds, 2000-3600000 (the lag is measured once a second), got "${maxLagRaw}"`)
  }

  const publicUrl = stripTrailingSlash(value('PUBLIC_URL') ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`)
  try {
    const u = new URL(publicUrl)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') fail('PUBLIC_URL', 'must be an http(s) origin')
  } catch (err) {
    if (err instanceof SettingsError) throw err
    fail('PUBLIC_URL', `not a URL: "${publicUrl}"`)
  }

  const adminToken = value('ADMIN_TOKEN')
  if (adminToken !== null && adminToken.length < 16) fail('ADMIN_TOKEN', 'must be at least 16 characters')

  const clock = value('CLOCK') ?? 'system'
  if (clock !== 'system' && clock !== 'manual') fail('CLOCK', `must be "system" or "manual", got "${clock}"`)

  let clockStart: Date | null = null
  const clockStartRaw = value('CLOCK_START')
  if (clockStartRaw !== null) {
    clockStart = new Date(clockStartRaw)
    if (Number.isNaN(clockStart.getTime())) fail('CLOCK_START', `not an ISO-8601 instant: "${clockStartRaw}"`)
  }

  const redisUrl = value('REDIS_URL')
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) fail('REDIS_URL', 'must start with redis:// or rediss://')

  const smtpUrl = value('SMTP_URL')
  if (smtpUrl !== null) {
    let parsed: URL | null = null
    try {
      parsed = new URL(smtpUrl)
    } catch {
      fail('SMTP_URL', 'not a URL (expected smtp://host:port or smtps://host:port)')
    }
    if ((parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') || parsed.hostname === '') {
      fail('SMTP_URL', 'must be an smtp:// or smtps:// URL with a host')
    }
  }

  const logLevel = value('LOG_LEVEL') ?? 'info'
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    fail('LOG_LEVEL', `unknown level "${logLevel}"`)
  }

  const logFormat = value('LOG_FORMAT') ?? 'auto'
  if (logFormat !== 'auto' && logFormat !== 'pretty' && logFormat !== 'json') {
    fail('LOG_FORMAT', `must be "pretty", "json" or "auto" (pretty on a terminal), got "${logFormat}"`)
  }

  // A hop count (operations.md section 1): `true` would trust whatever the client wrote leftmost in X-Forwarded-For.
  const trustProxyRaw = value('TRUST_PROXY')
  if (trustProxyRaw !== null && !/^(?:[1-9]|10)$/.test(trustProxyRaw)) {
    fail('TRUST_PROXY', `must be the number of reverse proxies in front of the service (1-10), not "${trustProxyRaw}"; unset it when clients connect directly`)
  }

  const startupTimeoutSeconds = seconds('STARTUP_TIMEOUT_SECONDS', value('STARTUP_TIMEOUT_SECONDS'), 30, 3600)
  const shutdownDrainSeconds = seconds('SHUTDOWN_DRAIN_SECONDS', value('SHUTDOWN_DRAIN_SECONDS'), 5, 300)

  const allowLoopbackRaw = value('WEBHOOKS_ALLOW_LOOPBACK') ?? 'false'
  if (allowLoopbackRaw !== 'true' && allowLoopbackRaw !== 'false') {
    fail('WEBHOOKS_ALLOW_LOOPBACK', `must be "true" or "false" (true: for tests and local development only), got "${allowLoopbackRaw}"`)
  }

  // At least the 35 days an invoice or traffic review may still read back, at most about 30 years.
  const retentionRaw = value('LEDGER_RETENTION_DAYS')
  if (retentionRaw !== null && (!/^\d+$/.test(retentionRaw) || Number(retentionRaw) < 35 || Number(retentionRaw) > 10_000)) {
    fail('LEDGER_RETENTION_DAYS', `must be a whole number of days, 35-10000, got "${retentionRaw}"`)
  }

  const attester = attesterOf(value, env.NODE_ENV === 'production')
  const keyDaysRaw = value('PRIVACY_PASS_KEY_DAYS')
  if (keyDaysRaw !== null && (!/^\d+$/.test(keyDaysRaw) || Number(keyDaysRaw) < 1 || Number(keyDaysRaw) > 365)) {
    fail('PRIVACY_PASS_KEY_DAYS', `must be a whole number of days, 1-365, got "${keyDaysRaw}"`)
  }

  const offerKeys = keyRingSetting('OFFER_KEYS', value)
  const keySealingKeys = keyRingSetting('KEY_SEALING_KEY', value)
  // A copy of the database must not open what the keys seal (issue 49): production takes them from outside it.
  const production = value('NODE_ENV') === 'production'
  const kept = keysKeptInStore({ role, offerKeys, keySealingKeys })
  if (production && kept.length > 0) {
    const names = kept.map((k) => k.setting)
    fail(
      names.join(' and '),
      `unset, and NODE_ENV=production refuses sealing keys kept in the database (a copy of it would open or forge what they seal); ` +
        `set ${names.join(' and ')}, or ${names.map((n) => `${n}_FILE`).join(' and ')} naming a file that holds the value (docs/sealing-keys.md)`,
    )
  }

  return {
    role,
    port,
    host,
    databaseUrl,
    databaseReadUrl,
    readReplicaMaxLagMs: maxLagRaw === null ? 5000 : Number(maxLagRaw),
    dataDir: value('DATA_DIR') ?? './data',
    publicUrl,
    adminToken,
    clock,
    clockStart,
    redisUrl,
    smtpUrl,
    logLevel,
    logFormat,
    trustProxy: trustProxyRaw === null ? 0 : Number(trustProxyRaw),
    offerKeys,
    keySealingKeys,
    production,
    startupTimeoutSeconds,
    shutdownDrainSeconds,
    webhooksAllowLoopback: allowLoopbackRaw === 'true',
    ledgerRetentionDays: retentionRaw === null ? 400 : Number(retentionRaw),
    attester,
    privacyPassKeyDays: keyDaysRaw === null ? 30 : Number(keyDaysRaw),
  }
}

function attesterOf(value: (name: string) => string | null, production: boolean): AttesterSettings | null {
  const kind = value('ATTESTER')
  const jwksUrl = value('ATTESTER_JWKS_URL')
  const jwksFile = value('ATTESTER_JWKS_FILE')
  if (kind !== null) {
    if (kind !== 'dev') fail('ATTESTER', `must be "dev" (or unset, with ATTESTER_JWKS_URL or ATTESTER_JWKS_FILE), got "${kind}"`)
    if (production) fail('ATTESTER', 'the development attester signs a JWT for anyone: it is refused with NODE_ENV=production')
    if (jwksUrl !== null || jwksFile !== null) fail('ATTESTER', 'ATTESTER=dev and ATTESTER_JWKS_URL/ATTESTER_JWKS_FILE exclude each other')
    return { kind: 'dev' }
  }
  if (jwksUrl === null && jwksFile === null) return null
  if (jwksUrl !== null && jwksFile !== null) fail('ATTESTER_JWKS_URL', 'set ATTESTER_JWKS_URL or ATTESTER_JWKS_FILE, not both')
  if (jwksUrl !== null) {
    let url: URL
    try {
      url = new URL(jwksUrl)
    } catch {
      fail('ATTESTER_JWKS_URL', `not a URL: "${jwksUrl}"`)
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))) {
      fail('ATTESTER_JWKS_URL', 'must be https:// (http:// only for 127.0.0.1, localhost or [::1])')
    }
  }
  const issuer = value('ATTESTER_ISSUER')
  const audience = value('ATTESTER_AUDIENCE')
  if (issuer === null) fail('ATTESTER_ISSUER', 'required with ATTESTER_JWKS_URL or ATTESTER_JWKS_FILE: the `iss` the attester writes')
  if (audience === null) fail('ATTESTER_AUDIENCE', 'required with ATTESTER_JWKS_URL or ATTESTER_JWKS_FILE: the `aud` the attester writes for this service')
  return { kind: 'jwks', jwksUrl, jwksFile, issuer, audience }
}

/** A whole number of seconds, 0 to `max`; unset: `fallback`. */
function seconds(name: string, raw: string | null, fallback: number, max: number): number {
  if (raw === null) return fallback
  if (!/^\d+$/.test(raw) || Number(raw) > max) fail(name, `must be a whole number of seconds, 0-${max}, got "${raw}"`)
  return Number(raw)
}

/**
 * A key ring setting (OFFER_KEYS, KEY_SEALING_KEY), from the variable or from
 * the file its `_FILE` variable names, never both: `id:hex` entries separated by
 * commas, ids 0-255 and unique, keys 32 bytes (64 hex digits). The first
 * seals; the others only open what they sealed (rotation: docs/decisions/0069-offer-keys-and-rotation.md
 * and docs/decisions/0239-the-key-sealing-key-follows-the-offer-keys.md).
 */
function keyRingSetting(name: 'OFFER_KEYS' | 'KEY_SEALING_KEY', value: (name: string) => string | null): KeyRing | null {
  const fromFile = secretFile(`${name}_FILE`, value(`${name}_FILE`))
  const direct = value(name)
  if (fromFile !== null && direct !== null) fail(name, `set ${name} or ${name}_FILE, not both`)
  return fromFile === null ? parseKeyRing(name, direct) : parseKeyRing(`${name}_FILE`, fromFile)
}

/**
 * The value held in the file a `*_FILE` setting names (a mounted secret: Docker, Kubernetes,
 * systemd credentials), surrounding whitespace dropped; null when the setting is unset. The
 * file's content is never echoed in an error.
 */
function secretFile(name: string, path: string | null): string | null {
  if (path === null) return null
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : 'unreadable'
    fail(name, `cannot read ${path} (${code})`)
  }
  if (text.trim() === '') fail(name, `${path} is empty`)
  return text.trim()
}

function parseKeyRing(name: string, raw: string | null): KeyRing | null {
  if (raw === null) return null
  const keys = raw.split(',').map((entry) => {
    const m = /^\s*(\d{1,3}):([0-9a-fA-F]{64})\s*$/.exec(entry)
    if (!m || Number(m[1]) > 255) fail(name, 'each entry must be <id 0-255>:<64 hex digits>')
    return { id: Number(m[1]), key: Buffer.from(m[2] ?? '', 'hex') }
  })
  if (new Set(keys.map((k) => k.id)).size !== keys.length) fail(name, 'key ids must be unique')
  return keys
}

/** A sealing key an instance keeps in the store because its setting is unset (docs/sealing-keys.md, "What is sealed, and what production refuses"). */
export interface StoredKey {
  /** The settings row the key is kept in. */
  row: 'offer_key' | 'key_sealing_key'
  /** The start-up setting that holds it outside the database instead. */
  setting: 'OFFER_KEYS' | 'KEY_SEALING_KEY'
  /** What a copy of the database opens or forges with it. */
  seals: string
}

/**
 * The sealing keys this instance takes from the store: the offer key unless
 * OFFER_KEYS is set (web instances: a worker seals and opens no impression
 * id), the key-sealing key unless KEY_SEALING_KEY is set (every role: web
 * instances seal API keys and webhook secrets, job-running ones open webhook
 * secrets to sign deliveries). Whoever holds a copy of the database holds
 * these keys, so what they seal is only as safe as the database.
 */
export function keysKeptInStore(settings: Pick<Settings, 'role' | 'offerKeys' | 'keySealingKeys'>): StoredKey[] {
  const kept: StoredKey[] = []
  if (settings.offerKeys === null && settings.role !== 'worker') {
    kept.push({ row: 'offer_key', setting: 'OFFER_KEYS', seals: 'impression ids (forged ids bill views and clicks)' })
  }
  if (settings.keySealingKeys === null) {
    kept.push({ row: 'key_sealing_key', setting: 'KEY_SEALING_KEY', seals: 'the copies of API keys, the webhook signing secrets and the outbox emails' })
  }
  return kept
}
