import type { Static } from 'typebox'
import { Field } from '../forms.tsx'
import { utc } from '../format.ts'
import { AUDIT_ACTIONS } from '../../../domain/audit.ts'
import type { AuditEntrySchema } from '../../schemas/admin/audit.ts'
import { NextPage, OpsPage, type OpsFrame } from './frame.tsx'

type Entry = Static<typeof AuditEntrySchema>

const text = (value: unknown): string => (value === undefined ? '—' : JSON.stringify(value))

/** The fields whose value differs between before and after, in the order they first appear. */
export function changes(beforeObject: object | null, afterObject: object | null): { field: string; from: string; to: string }[] {
  const before = beforeObject as Record<string, unknown> | null
  const after = afterObject as Record<string, unknown> | null
  const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])]
  return fields
    .filter((f) => JSON.stringify(before?.[f]) !== JSON.stringify(after?.[f]))
    .map((field) => ({ field, from: before === null ? '—' : text(before[field]), to: after === null ? '—' : text(after[field]) }))
}

function Who(props: { actor: Entry['actor'] }) {
  return props.actor.kind === 'token' ? <>the token (operator API)</> : <>{props.actor.email ?? props.actor.operator_id}</>
}

/** `/ops/audit`: every operator action, newest first, filterable by action and target id. */
export function AuditPage(props: { frame: OpsFrame; action: string; targetId: string; entries: Entry[]; next: string | null }) {
  return (
    <OpsPage frame={props.frame} title="Audit log" path="/ops/audit">
      <form method="get" action="/ops/audit" class="inline-form" aria-label="Filter the audit log">
        <div class="field">
          <label for="f-action">Action</label>
          <select id="f-action" name="action">
            <option value="" selected={props.action === ''}>
              any
            </option>
            {AUDIT_ACTIONS.map((a) => (
              <option value={a} selected={props.action === a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <Field type="text" name="target_id" label="Target id" value={props.targetId} hint="A user id, invoice id, campaign id, address…" />
        <button type="submit">Filter</button>
      </form>
      {props.entries.length === 0 ? <p>No entries.</p> : null}
      <ol class="steps">
        {props.entries.map((e) => {
          const changed = changes(e.before, e.after)
          return (
            <li>
              <p>
                <strong>{e.action}</strong> on {e.target.kind} {e.target.id ? <code>{e.target.id}</code> : null} by <Who actor={e.actor} />
              </p>
              <p class="muted">
                {utc(e.at)} · from {e.source_address} · entry {e.entry_id}
              </p>
              {e.before === null || e.after === null ? (
                <p class="muted">{e.before === null ? (e.after === null ? 'Nothing to compare.' : 'No state before: see what it is after.') : 'Nothing after.'}</p>
              ) : changed.length > 0 ? (
                <ul class="changes">
                  {changed.map((c) => (
                    <li>
                      <code>{c.field}</code>: {c.from} → {c.to}
                    </li>
                  ))}
                </ul>
              ) : (
                <p class="muted">No field changed.</p>
              )}
              <details>
                <summary>Before and after</summary>
                <pre class="json">{`before: ${JSON.stringify(e.before, null, 2)}\nafter: ${JSON.stringify(e.after, null, 2)}`}</pre>
              </details>
            </li>
          )
        })}
      </ol>
      <NextPage href={props.next} label="Older entries" />
    </OpsPage>
  )
}
