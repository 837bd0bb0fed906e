import type { ColumnType, Generated } from 'kysely'
import type { AuditAction, AuditActor, AuditTargetKind } from '../domain/audit.ts'
import type { LinkEnd } from '../domain/email-links.ts'

/**
 * Table types of who may act and what was sent or done: portal sign-ins, browser sessions,
 * password links, operators, the audit log, and the outbox of emails (src/store/schema.ts has the
 * rest; they mirror src/store/migrations/*.sql).
 */

type Timestamp = ColumnType<Date, Date, Date>

/** How an outbox message left the service (migration 0017). */
export type OutboxDelivery = 'stored' | 'sent' | 'failed'

/** Why an emailed password link's stored copy was removed (migration 0032). */
export type OutboxLinkEnd = LinkEnd

/** Every email, kept before any SMTP attempt (migration 0017), its body sealed (migration 0032). */
export interface OutboxTable {
  message_id: string
  to_address: string
  subject: string
  /** A body still in clear: only rows written before migration 0032, until start-up seals them. */
  body: ColumnType<string | null, string | null | undefined, string | null>
  /** The body (without its link), sealed under the key-sealing key. */
  body_sealed: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>
  /** Where the password link goes back into the body (a UTF-16 offset); null: no link. */
  link_at: ColumnType<number | null, number | null | undefined, never>
  /** The link, sealed on its own while it works; null once ended (or no link). */
  link_sealed: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>
  /** SHA-256 of the link's token (password_tokens.token_hash). */
  link_token_hash: ColumnType<Buffer | null, Buffer | null | undefined, never>
  link_expires_at: ColumnType<Date | null, Date | null | undefined, never>
  link_ended: ColumnType<OutboxLinkEnd | null, OutboxLinkEnd | null | undefined, OutboxLinkEnd | null>
  sent_at: Timestamp
  delivery: OutboxDelivery
  error: string | null
  /** Insertion order: breaks ties of sent_at (migration 0028). */
  seq: Generated<number>
}

/** A portal sign-in: one per account, keyed by the normalized email (migration 0018). */
export interface LoginsTable {
  email_key: string
  user_id: string
  password_hash: string
  password_changed_at: Timestamp
}

/** Who a browser session belongs to. */
export type SessionSubjectKind = 'advertiser' | 'operator'

/** Browser sessions; only the token's SHA-256 is kept (migration 0018). */
export interface SessionsTable {
  token_hash: Buffer
  subject_kind: SessionSubjectKind
  subject_id: string
  created_at: Timestamp
  idle_expires_at: Timestamp
  expires_at: Timestamp
}

/** What an emailed password link is for. */
export type PasswordTokenPurpose = 'reset' | 'set'

/** One-use password links (migration 0018). */
export interface PasswordTokensTable {
  token_hash: Buffer
  user_id: string
  purpose: PasswordTokenPurpose
  email: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Timestamp | null
}

/** Operator sign-ins (migration 0020). */
export interface OperatorsTable {
  operator_id: string
  email: string
  email_key: string
  password_hash: string
  created_at: Timestamp
  password_changed_at: Timestamp
}

/** Who acted: an operator signed in to the console, or a caller of the token API. */
export type AuditActorKind = AuditActor['kind']

/** Every operator action (migration 0020); before/after are secret-free JSON snapshots. */
export interface AuditLogTable {
  entry_id: ColumnType<number, never, never>
  at: Timestamp
  actor_kind: AuditActorKind
  actor_id: string | null
  action: AuditAction
  target_kind: AuditTargetKind
  target_id: string | null
  before: ColumnType<unknown, string | null, never>
  after: ColumnType<unknown, string | null, never>
  source_address: string
}

/** Sign-ins, sessions, password links, operators, the audit log and the outbox. */
export interface AccessTables {
  outbox: OutboxTable
  logins: LoginsTable
  sessions: SessionsTable
  password_tokens: PasswordTokensTable
  operators: OperatorsTable
  audit_log: AuditLogTable
}
