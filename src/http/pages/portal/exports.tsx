import type { ComponentChildren } from 'preact'
import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { Field, PostForm } from '../forms.tsx'
import { ErrorSummary, SelectField } from '../choice-fields.tsx'
import { count, utc } from '../format.ts'
import type { ExportJobSchema } from '../../schemas/exports.ts'
import type { ExportRequestForm } from '../../schemas/pages/forms.ts'
import type { Detail } from '../../../domain/errors.ts'
import type { FormProblem } from './campaign-form.tsx'
import { DataTable } from '../data-table.tsx'

type ExportJob = Static<typeof ExportJobSchema>
export type ExportFormValues = Omit<Static<typeof ExportRequestForm>, '_csrf'>
type ExportFormField = 'start' | 'end' | 'campaign' | 'schema_version'

const LABELS: Record<ExportFormField, string> = { start: 'Start', end: 'End', campaign: 'Campaign', schema_version: 'Columns' }

/** The CSV schemas in words (the API's `schema_version`); blank leaves the choice to the service's default. */
const SCHEMA_CHOICES: { value: string; label: string }[] = [
  { value: '', label: 'Standard (the service default)' },
  { value: 'ledger-export-v1', label: 'ledger-export-v1: the basic columns' },
  { value: 'ledger-export-v2', label: 'ledger-export-v2: adds your billing country' },
  { value: 'ledger-export-v3', label: 'ledger-export-v3: adds why each view was not billed' },
  { value: 'ledger-export-v4', label: 'ledger-export-v4: also the attestation token of each attested impression' },
]

/** Seconds between reloads while a job is queued or running (the API asks clients to poll no more than every five seconds). */
export const EXPORT_REFRESH_SECONDS = 5

/** "2026-11-02T09:00": the value of a datetime-local field, in UTC. */
export const dateTimeLocal = (d: Date): string => d.toISOString().slice(0, 16)

/** The form's first values: the last seven whole UTC days and today so far. */
export function newExportValues(now: Date): ExportFormValues {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())
  const day = 24 * 3_600_000
  return { start: dateTimeLocal(new Date(today - 7 * day)), end: dateTimeLocal(new Date(today + day)), campaign: '', schema_version: '' }
}

/** A refused export request in words, at the field the API's error names. */
export function exportProblem(status: number, detail: Detail): FormProblem<ExportFormField> {
  const d: Record<string, unknown> = typeof detail === 'string' ? {} : detail
  const reason = typeof d.reason === 'string' ? d.reason : ''
  const field = typeof d.field === 'string' ? d.field.split('.')[0] : undefined
  if (status === 404 || field === 'campaign_ids') return { fields: { campaign: 'Choose one of your campaigns, or All campaigns.' } }
  if (field === 'schema_version') return { fields: { schema_version: 'Choose one of the listed column sets.' } }
  if (status === 400 && (field === 'start' || field === 'end')) {
    const what = LABELS[field].toLowerCase()
    let message: string
    if (reason === 'required') message = `Enter the ${what} (UTC).`
    else if (reason === 'end_not_after_start') message = 'The end must be after the start.'
    else if (reason === 'interval_too_long') message = `An export covers at most ${typeof d.max_days === 'number' ? count(d.max_days) : 31} days: move the end closer to the start.`
    else message = `Enter the ${what} as a date and time in UTC, e.g. 2026-11-01T00:00.`
    return { fields: { [field]: message } }
  }
  if (status === 503) return { fields: {}, form: 'Exports are switched off for the moment. Nothing was requested; try again later.' }
  return { fields: {}, form: typeof detail === 'string' ? `The export was not requested: ${detail}.` : `The export was not requested (${reason || 'error'}).` }
}

const STATUS: Record<ExportJob['status'], { label: string; tone: string }> = {
  queued: { label: 'Queued', tone: 'warn' },
  running: { label: 'Running', tone: 'warn' },
  ready: { label: 'Ready', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
}

const FAILURES: Record<string, string> = {
  row_limit_exceeded: 'More rows than one export may hold: narrow the window or choose one campaign.',
  expired: 'It was not run before it expired. Request it again.',
  internal_error: 'It failed on our side. Request it again.',
}

function size(bytes: number): string {
  if (bytes < 1024) return `${count(bytes)} bytes`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

function progress(job: ExportJob): ComponentChildren {
  switch (job.status) {
    case 'queued':
      return 'Waiting to start.'
    case 'running':
      return 'Writing the file.'
    case 'ready':
      return `${count(job.row_count ?? 0)} rows, ${size(job.size_bytes ?? 0)}.`
    case 'failed':
      return FAILURES[job.error_code ?? 'internal_error'] ?? FAILURES.internal_error
  }
}

export const exportDownloadHref = (id: string) => `/portal/exports/${encodeURIComponent(id)}/download`

export function ExportsPage(props: {
  csrf: string
  email: string
  now: Date
  jobs: ExportJob[]
  nextCursor: string | null
  paged: boolean
  /** The account's campaigns to filter by (newest first). */
  campaigns: { campaign_id: string; name: string }[]
  values: ExportFormValues
  problem?: FormProblem<ExportFormField>
  notice?: string | null
}) {
  const errors = props.problem?.fields ?? {}
  const summary = (Object.keys(LABELS) as ExportFormField[]).filter((f) => errors[f]).map((f) => ({ id: `f-${f}`, label: LABELS[f], message: errors[f]! }))
  const names = new Map(props.campaigns.map((c) => [c.campaign_id, c.name]))
  const working = props.jobs.some((j) => j.status === 'queued' || j.status === 'running')
  const windowHint = 'UTC. The export holds every ledger event from Start up to, not including, End; at most 31 days (less if an operator lowered it).'
  return (
    <Page
      title="Exports"
      area="portal"
      path="/portal/exports"
      session={{ csrf: props.csrf, who: props.email }}
      flash={props.notice}
      refreshSeconds={working ? EXPORT_REFRESH_SECONDS : undefined}
    >
      <ErrorSummary errors={summary} form={props.problem?.form} />
      <h2>Request a ledger export</h2>
      <p>
        A CSV of every ledger event (offers, impressions, views, clicks) with its debit. No viewer identifiers are exported.
        With ledger-export-v3 it also lists repeated and late view reports, and gives the reason each view was not billed.
      </p>
      <PostForm action="/portal/exports" csrf={props.csrf} class="card" label="Request a ledger export">
        <Field name="start" label="Start" type="datetime-local" value={props.values.start ?? ''} error={errors.start} hint={windowHint} id="f-start" />
        <Field name="end" label="End" type="datetime-local" value={props.values.end ?? ''} error={errors.end} hint="UTC." id="f-end" />
        <SelectField
          name="campaign"
          label="Campaign"
          value={props.values.campaign ?? ''}
          error={errors.campaign}
          hint="Optional: only this campaign's events."
          choices={[{ value: '', label: 'All campaigns' }, ...props.campaigns.map((c) => ({ value: c.campaign_id, label: c.name }))]}
        />
        <SelectField
          name="schema_version"
          label="Columns"
          value={props.values.schema_version ?? ''}
          error={errors.schema_version}
          hint="Which CSV schema the file follows; each adds columns to the one before."
          choices={SCHEMA_CHOICES}
        />
        <button type="submit">Request export</button>
      </PostForm>
      <h2>Your exports</h2>
      {working ? (
        <p class="muted" role="status">
          An export is in progress; this page reloads itself every {EXPORT_REFRESH_SECONDS} seconds (or reload it yourself).
        </p>
      ) : null}
      {props.jobs.length === 0 ? (
        <p>{props.paged ? 'No more exports.' : 'No exports yet. Files are kept for 24 hours after you request them.'}</p>
      ) : (
        // Focusable, so a keyboard can scroll the table on a narrow screen even when no row has a link yet.
        <DataTable label="Your exports" columns={['Requested', 'Window', 'Status', 'Progress', 'Expires', 'File']}>
          {props.jobs.map((job) => {
            const expired = props.now.getTime() >= new Date(job.expires_at).getTime()
            const campaignIds = job.filters.campaign_ids ?? []
            const s = STATUS[job.status]
            return (
              <tr>
                <td id={`export-${job.id}`}>{utc(job.created_at)}</td>
                <td>
                  {utc(job.filters.start)} to {utc(job.filters.end)}
                  <br />
                  <span class="muted">{job.schema_version}</span>
                  {campaignIds.length > 0 ? (
                    <>
                      <br />
                      <span class="muted">{campaignIds.map((id) => names.get(id) ?? id).join(', ')}</span>
                    </>
                  ) : null}
                </td>
                <td>
                  <span class={`badge ${s.tone}`}>{s.label}</span>
                </td>
                <td>{progress(job)}</td>
                <td>{expired ? <>Expired {utc(job.expires_at)}</> : utc(job.expires_at)}</td>
                <td>
                  {job.status === 'ready' && !expired ? (
                    <a href={exportDownloadHref(job.id)} aria-describedby={`export-${job.id}`} download>
                      Download
                    </a>
                  ) : (
                    <span class="muted">{expired ? 'Expired' : '—'}</span>
                  )}
                </td>
              </tr>
            )
          })}
        </DataTable>
      )}
      {props.nextCursor !== null || props.paged ? (
        <nav class="pager" aria-label="Pages">
          {props.paged ? <a href="/portal/exports">Newest exports</a> : null}
          {props.nextCursor !== null ? <a href={`/portal/exports?cursor=${encodeURIComponent(props.nextCursor)}`}>Next page</a> : null}
        </nav>
      ) : null}
    </Page>
  )
}
