import type { Static } from 'typebox'
import { Page } from '../layout.tsx'
import { Field, PostForm } from '../forms.tsx'
import { CheckboxField, ErrorSummary } from '../choice-fields.tsx'
import { utc } from '../format.ts'
import type { WebhookEndpointDetailSchema, WebhookEndpointSchema } from '../../schemas/webhooks.ts'
import type { Detail } from '../../../domain/errors.ts'
import { WEBHOOK_ENDPOINTS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../../../domain/webhooks.ts'
import type { FormProblem } from './campaign-form.tsx'
import { DataTable } from '../data-table.tsx'
import { SecretCard } from '../secret-card.tsx'

type Endpoint = Static<typeof WebhookEndpointSchema>
type EndpointDetail = Static<typeof WebhookEndpointDetailSchema>
type WebhookFormField = 'url' | 'events'

export interface WebhookFormValues {
  url: string
  events: WebhookEventType[]
}

/** What each event means, in the words of the form's checkboxes. */
export const EVENT_LABELS: Record<WebhookEventType, string> = {
  'campaign.exhausted': 'campaign.exhausted: a campaign delivered every impression it bought',
  'campaign.moderation_decided': 'campaign.moderation_decided: a creative was approved or rejected',
  'invoice.finalized': 'invoice.finalized: an invoice was issued',
  'invoice.payment_failed': 'invoice.payment_failed: a card charge was declined',
  'export.ready': 'export.ready: a ledger export can be downloaded',
}

/** The form field of one event's checkbox. */
export const eventFieldName = (event: WebhookEventType) => `event_${event}`

const URL_REASONS: Record<string, string> = {
  invalid_url: 'Enter a full URL, starting with https://.',
  too_long: 'Enter a URL of at most 500 characters.',
  https_required: 'Enter an https:// URL: webhooks are only sent over TLS.',
  credentials_not_allowed: 'Remove the user name and password from the URL; verify deliveries by their signature instead.',
  forbidden_address: 'This host is a private, loopback or link-local address (or resolves to one). Enter a public https URL.',
  unresolvable_host: 'This host name does not resolve. Check the spelling, or register it once its DNS is in place.',
  required: 'Enter the URL to send webhooks to.',
}

/** Every refusal of a registration in words, each at its field (`webhookProblem` of each, merged). */
export function webhookProblems(errors: readonly { status: number; detail: Detail }[]): FormProblem<WebhookFormField> {
  const merged: FormProblem<WebhookFormField> = { fields: {} }
  for (const e of errors) {
    const p = webhookProblem(e.status, e.detail)
    Object.assign(merged.fields, p.fields)
    if (p.form !== undefined) merged.form = p.form
  }
  return merged
}

/** A refused registration in words, at the field the service's error names. */
export function webhookProblem(status: number, detail: Detail): FormProblem<WebhookFormField> {
  const d: Record<string, unknown> = typeof detail === 'string' ? {} : detail
  const reason = typeof d.reason === 'string' ? d.reason : ''
  const field = typeof d.field === 'string' ? d.field.split('.')[0] : undefined
  if (status === 409) return { fields: {}, form: `An account has at most ${WEBHOOK_ENDPOINTS_PER_ACCOUNT} endpoints. Delete one you no longer use first.` }
  if (field === 'events') return { fields: { events: 'Choose at least one event.' } }
  if (field === 'url') return { fields: { url: URL_REASONS[reason] ?? 'Enter a public https URL.' } }
  return { fields: {}, form: typeof detail === 'string' ? `The endpoint was not added: ${detail}.` : `The endpoint was not added (${reason || 'error'}).` }
}

const FIELD_LABELS: Record<WebhookFormField, string> = { url: 'Endpoint URL', events: 'Events' }

export const webhookHref = (id: string) => `/portal/webhooks/${encodeURIComponent(id)}`

function EventsFieldset(props: { values: WebhookEventType[]; error?: string | undefined }) {
  return (
    <fieldset id="f-events" class={props.error ? 'events has-error' : 'events'} aria-describedby={props.error ? 'f-events-error' : undefined}>
      <legend>Events</legend>
      {props.error ? (
        <p class="field-error" id="f-events-error">
          {props.error}
        </p>
      ) : null}
      {WEBHOOK_EVENT_TYPES.map((event) => (
        <CheckboxField name={eventFieldName(event)} id={`f-event-${event.replace('.', '-')}`} label={EVENT_LABELS[event]} checked={props.values.includes(event)} />
      ))}
    </fieldset>
  )
}

function NewSecret(props: { endpoint: Endpoint; secret: string }) {
  return (
    <SecretCard id="webhook-secret" secret={props.secret} copyLabel="Copy secret" heading={`Signing secret for ${props.endpoint.url}`}>
      <strong>Copy it now:</strong> this is the only time it is shown. Your receiver verifies each delivery's <code>webhook-signature</code> with
      it. If you lose it, delete the endpoint and add it again.
    </SecretCard>
  )
}

export function WebhooksPage(props: {
  csrf: string
  email: string
  endpoints: Endpoint[]
  values: WebhookFormValues
  problem?: FormProblem<WebhookFormField>
  created?: { endpoint: Endpoint; secret: string }
  notice?: string | null
}) {
  const errors = props.problem?.fields ?? {}
  const summary = (Object.keys(FIELD_LABELS) as WebhookFormField[])
    .filter((f) => errors[f])
    .map((f) => ({ id: f === 'events' ? 'f-events' : `f-${f}`, label: FIELD_LABELS[f], message: errors[f]! }))
  return (
    <Page title="Webhooks" area="portal" path="/portal/webhooks" session={{ csrf: props.csrf, who: props.email }} flash={props.notice}>
      <ErrorSummary errors={summary} form={props.problem?.form} />
      {props.created ? <NewSecret endpoint={props.created.endpoint} secret={props.created.secret} /> : null}
      <p>
        Webhooks tell your server at once when something changes: we POST a signed JSON message to your endpoint, retry for 24 hours if it
        does not answer 2xx, and log every attempt. Each delivery carries the Standard Webhooks headers <code>webhook-id</code>,{' '}
        <code>webhook-timestamp</code> and <code>webhook-signature</code>: check the signature with the endpoint's secret before you trust the
        body. The API stays the source of truth (<a href="/docs">API reference</a>).
      </p>
      <h2>Your endpoints</h2>
      {props.endpoints.length === 0 ? (
        <p>No endpoints yet.</p>
      ) : (
        <DataTable label="Your endpoints" columns={['URL', 'Events', 'Added', 'Actions']}>
          {props.endpoints.map((e) => (
            <tr>
              <td id={`endpoint-${e.id}`} class="wrap">
                {e.url}
              </td>
              <td>{e.events.join(', ')}</td>
              <td>{utc(e.created_at)}</td>
              <td>
                <div class="row-actions">
                  <a href={webhookHref(e.id)} aria-describedby={`endpoint-${e.id}`}>
                    Delivery log
                  </a>
                  <SendTest csrf={props.csrf} endpointId={e.id} />
                  <PostForm action={`${webhookHref(e.id)}/delete`} csrf={props.csrf} confirm={`Delete the endpoint ${e.url}?`}>
                    <button type="submit" class="secondary" aria-describedby={`endpoint-${e.id}`}>
                      Delete endpoint
                    </button>
                  </PostForm>
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2>Add an endpoint</h2>
      {props.endpoints.length >= WEBHOOK_ENDPOINTS_PER_ACCOUNT ? (
        <p>You have {WEBHOOK_ENDPOINTS_PER_ACCOUNT} endpoints, the most an account may have. Delete one to add another.</p>
      ) : (
        <PostForm action="/portal/webhooks" csrf={props.csrf} class="card" label="Add an endpoint">
          <Field
            name="url"
            label="Endpoint URL"
            type="url"
            value={props.values.url}
            error={errors.url}
            hint="A public https:// URL of at most 500 characters. Redirects are not followed."
            autocomplete="off"
          />
          <EventsFieldset values={props.values.events} error={errors.events} />
          <button type="submit">Add endpoint</button>
        </PostForm>
      )}
    </Page>
  )
}

const DELIVERY_STATUS: Record<EndpointDetail['deliveries'][number]['status'], { label: string; tone: string }> = {
  pending: { label: 'Retrying', tone: 'warn' },
  delivered: { label: 'Delivered', tone: 'ok' },
  failed: { label: 'Failed', tone: 'bad' },
}

/** Why an attempt failed without an HTTP answer, in words (the code itself stays in the outcome's tooltip). */
const SEND_ERRORS: Record<string, string> = {
  timeout: 'No answer within 10 seconds',
  forbidden_address: 'Refused: the host resolves to a private address',
  unresolvable_host: 'The host name did not resolve',
  secret_unavailable: 'Not sent: the signing secret could not be read; it is retried',
  ECONNREFUSED: 'Connection refused: nothing listens at that address and port',
  ECONNRESET: 'The connection was closed before an answer',
  ETIMEDOUT: 'The connection timed out',
  EHOSTUNREACH: 'The host could not be reached',
  ENOTFOUND: 'The host name did not resolve',
  ERR_TLS_CERT_ALTNAME_INVALID: "The TLS certificate does not name this host",
  CERT_HAS_EXPIRED: 'The TLS certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'The TLS certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'The TLS certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'The TLS certificate could not be verified',
}

/** An attempt's outcome in words, and the raw code (an HTTP status or an error code) for its tooltip. */
export function attemptOutcome(a: Pick<EndpointDetail['attempts'][number], 'succeeded' | 'status_code' | 'error'>): { words: string; code: string | null } {
  if (a.succeeded) return { words: `Delivered (HTTP ${a.status_code ?? '—'})`, code: null }
  if (a.status_code !== null) {
    const kind = a.status_code >= 500 ? 'a server error' : a.status_code >= 400 ? 'a refusal' : 'not a success'
    return { words: `Your endpoint answered HTTP ${a.status_code} (${kind})`, code: null }
  }
  const code = a.error ?? 'unknown'
  const known = SEND_ERRORS[code]
  if (known) return { words: known, code }
  if (/CERT|TLS|SSL/i.test(code)) return { words: 'The TLS connection failed: the certificate was not accepted', code }
  return { words: 'The request could not be sent', code }
}

function AttemptOutcome(props: { attempt: EndpointDetail['attempts'][number] }) {
  const outcome = attemptOutcome(props.attempt)
  return (
    <span class={`badge wrap-badge ${props.attempt.succeeded ? 'ok' : 'bad'}`} title={outcome.code ? `Error code: ${outcome.code}` : undefined}>
      {outcome.words}
    </span>
  )
}

/** "Send test event": a `webhook.test` message to the endpoint now, then its delivery log (where the attempt shows). */
function SendTest(props: { csrf: string; endpointId: string; describedBy?: null }) {
  return (
    <PostForm action={`${webhookHref(props.endpointId)}/test`} csrf={props.csrf}>
      <button type="submit" class="secondary" aria-describedby={props.describedBy === null ? undefined : `endpoint-${props.endpointId}`}>
        Send test event
      </button>
    </PostForm>
  )
}

export function WebhookEndpointPage(props: { csrf: string; email: string; endpoint: EndpointDetail; notice?: string | null }) {
  const e = props.endpoint
  return (
    <Page title="Webhook delivery log" area="portal" path="/portal/webhooks" session={{ csrf: props.csrf, who: props.email }} flash={props.notice}>
      <p>
        <a href="/portal/webhooks">All endpoints</a>
      </p>
      <dl class="facts">
        <dt>URL</dt>
        <dd class="wrap">{e.url}</dd>
        <dt>Events</dt>
        <dd>{e.events.join(', ')}</dd>
        <dt>Added</dt>
        <dd>{utc(e.created_at)}</dd>
      </dl>
      <SendTest csrf={props.csrf} endpointId={e.id} describedBy={null} />
      <h2>Deliveries</h2>
      <p class="muted">The 50 most recent. A delivery is retried with growing pauses for 24 hours; Resend sends it again now, with the same id.</p>
      {e.deliveries.length === 0 ? (
        <p>Nothing sent yet.</p>
      ) : (
        <DataTable label="Deliveries" columns={['Event', 'Happened', 'Status', 'Attempts', 'Next attempt', 'Resend']}>
          {e.deliveries.map((d) => {
            const s = DELIVERY_STATUS[d.status]
            return (
              <tr>
                <td id={`delivery-${d.id}`}>
                  {d.event_type}
                  <br />
                  <code class="muted">{d.id}</code>
                </td>
                <td>{utc(d.created_at)}</td>
                <td>
                  <span class={`badge ${s.tone}`}>{s.label}</span>
                </td>
                <td>{d.attempts}</td>
                <td>{utc(d.next_attempt_at)}</td>
                <td>
                  <PostForm action={`${webhookHref(e.id)}/deliveries/${encodeURIComponent(d.id)}/resend`} csrf={props.csrf}>
                    <button type="submit" class="secondary" aria-describedby={`delivery-${d.id}`}>
                      Resend
                    </button>
                  </PostForm>
                </td>
              </tr>
            )
          })}
        </DataTable>
      )}
      <h2>Attempts</h2>
      {e.attempts.length === 0 ? (
        <p>No attempts yet.</p>
      ) : (
        <DataTable label="Attempts" columns={['When', 'Event', 'Outcome', 'Took']}>
          {e.attempts.map((a) => (
            <tr>
              <td>{utc(a.attempted_at)}</td>
              <td>
                {a.event_type}
                <br />
                <code class="muted">{a.delivery_id}</code>
              </td>
              <td>
                <AttemptOutcome attempt={a} />
              </td>
              <td>{a.duration_ms} ms</td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2>Delete this endpoint</h2>
      <PostForm action={`${webhookHref(e.id)}/delete`} csrf={props.csrf} confirm={`Delete the endpoint ${e.url}?`}>
        <p>Nothing more is sent to it; its undelivered messages and this log are deleted.</p>
        <button type="submit" class="secondary">
          Delete endpoint
        </button>
      </PostForm>
    </Page>
  )
}
