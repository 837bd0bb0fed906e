/**
 * The audit log's vocabulary (docs/operator-console.md (decision 0212)): every
 * operator action through the console or the token API, by name. Names are
 * `<target>.<verb>`; the console filters on them and the API lists them.
 */
export const AUDIT_ACTIONS = [
  'account.create',
  'account.write_approval',
  'account.terms',
  'account.writes',
  'account.rotate_key',
  'account.billing_enroll',
  'account.net30_request',
  'account.billing_authenticate',
  'account.collection_hold',
  'account.credit',
  'invoice.mark_paid',
  'invoice.void',
  'config.update',
  'component.set',
  'campaign.moderate',
  'clock.move',
  'job.run',
  'address.unlock',
  'traffic_block.add',
  'traffic_block.remove',
  'operator.setup',
] as const
export type AuditAction = (typeof AUDIT_ACTIONS)[number]

/** What an action is done to; the entry's target id is that thing's id (a user id, an invoice id, an address…). */
export const AUDIT_TARGET_KINDS = ['account', 'invoice', 'config', 'component', 'campaign', 'clock', 'job', 'address', 'operator', 'traffic_block'] as const
export type AuditTargetKind = (typeof AUDIT_TARGET_KINDS)[number]

/** Who acted: an operator signed in to the console (with an id), or a caller holding ADMIN_TOKEN (no id). */
export const AUDIT_ACTOR_KINDS = ['operator', 'token'] as const
export type AuditActor = { kind: 'operator'; id: string } | { kind: 'token'; id: null }
