import { Type } from 'typebox'
import { DateTime, Nullable, StringEnum } from './common.ts'
import { WEBHOOK_ENDPOINTS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES, WEBHOOK_MESSAGE_STATUSES, WEBHOOK_TEST_TYPE, WEBHOOK_URL_MAX_LENGTH } from '../../domain/webhooks.ts'

const EventType = StringEnum(WEBHOOK_EVENT_TYPES, {
  description:
    '`campaign.exhausted` (every impression bought is delivered; the campaign completed), `campaign.moderation_decided` ' +
    '(an operator approved or rejected the creative), `invoice.finalized`, `invoice.payment_failed` (an auto-pay charge ' +
    'was declined), `export.ready` (an export can be downloaded). docs/webhooks.md shows each body.',
})

/** A delivery's type: an event, or the test message the portal's "Send test event" sends to one endpoint. */
const MessageType = StringEnum([...WEBHOOK_EVENT_TYPES, WEBHOOK_TEST_TYPE], {
  description:
    'The event delivered (see the events of an endpoint), or `webhook.test`: a test message sent to this endpoint from the portal\'s ' +
    '"Send test event", whatever it subscribes to; its body\'s `data` has `endpoint_id` and a `message`.',
})

const EndpointUrl = Type.String({
  description:
    `Where deliveries are POSTed: an absolute \`https\` URL of at most ${WEBHOOK_URL_MAX_LENGTH} characters, without user name or ` +
    'password, whose host does not resolve to a private, loopback, link-local, unique-local, CGNAT, multicast, unspecified or ' +
    'reserved address (IPv4 or IPv6, IPv4-mapped included). Checked now and again before every delivery; redirects are not followed.',
})

export const WebhookEndpointCreateSchema = Type.Object(
  {
    url: Type.String({ ...EndpointUrl, minLength: 1, maxLength: 2048 }),
    events: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      minItems: 1,
      maxItems: 20,
      description: `The events to deliver, one or more of: ${WEBHOOK_EVENT_TYPES.map((e) => `\`${e}\``).join(', ')}. Another name is 400 \`unknown_event\`.`,
    }),
  },
  { additionalProperties: false },
)

const endpointFields = {
  id: Type.String({ description: 'Endpoint id (`whe_…`).' }),
  url: EndpointUrl,
  events: Type.Array(EventType, { description: 'The subscribed events, in catalogue order.' }),
  created_at: DateTime,
}

export const WebhookEndpointSchema = Type.Object(endpointFields, {
  description: 'WebhookEndpoint: where and for what events the account is sent webhooks. The secret is never shown again.',
})

export const WebhookEndpointCreatedSchema = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({
      pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$',
      description:
        'The signing secret, `whsec_` + base64 of 32 random bytes: shown in this answer ONLY; copy it now. Verify each ' +
        'delivery\'s `webhook-signature` with it (docs/webhooks.md). Lost: delete the endpoint and register it again.',
    }),
  },
  { description: 'The endpoint just registered, with its secret (this once).' },
)

export const WebhookEndpointListSchema = Type.Object({
  endpoints: Type.Array(WebhookEndpointSchema, { description: `The account's endpoints (at most ${WEBHOOK_ENDPOINTS_PER_ACCOUNT}), oldest first.` }),
})

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ description: 'The message id (`msg_…`), sent as `webhook-id` on every attempt of this delivery, resends included.' }),
    event_type: MessageType,
    status: StringEnum(WEBHOOK_MESSAGE_STATUSES, {
      description: '`pending` (due at `next_attempt_at`), `delivered` (a 2xx answer), `failed` (no 2xx within 24 hours of the event or the last resend).',
    }),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts made so far.' }),
    created_at: Type.String({ format: 'date-time', description: 'When the event happened (the body\'s `timestamp`).' }),
    next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'When it is tried next; null unless `pending`.' })),
    delivered_at: Nullable(DateTime),
  },
  { description: 'WebhookDelivery: one event for this endpoint and its state.' },
)

export const WebhookAttemptSchema = Type.Object(
  {
    delivery_id: Type.String({ description: 'The delivery (`msg_…`) this attempt sent.' }),
    event_type: MessageType,
    attempted_at: DateTime,
    duration_ms: Type.Integer({ minimum: 0, description: 'Real time from the start of the attempt to the answer or the error.' }),
    status_code: Nullable(Type.Integer({ description: 'The receiver\'s HTTP status; null when no answer came.' })),
    error: Nullable(
      Type.String({
        description:
          'Why it did not count as delivered: `http_<status>` (not 2xx; redirects are not followed), `timeout` (no answer within 10 s), ' +
          '`forbidden_address` (the host now resolves to an address webhooks may not reach), `unresolvable_host`, a connection ' +
          'error code (e.g. `ECONNREFUSED`), `secret_unavailable`. Null when delivered.',
      }),
    ),
    succeeded: Type.Boolean(),
  },
  { description: 'WebhookAttempt: one POST of a delivery.' },
)

export const WebhookEndpointDetailSchema = Type.Object(
  {
    ...endpointFields,
    deliveries: Type.Array(WebhookDeliverySchema, { description: 'The 50 most recent deliveries, newest first.' }),
    attempts: Type.Array(WebhookAttemptSchema, { description: 'The 50 most recent attempts, newest first.' }),
  },
  { description: 'WebhookEndpoint with its recent deliveries and attempt log.' },
)

export const WebhookEndpointDeletedSchema = Type.Object({
  id: Type.String({ description: 'The endpoint deleted.' }),
  deleted: Type.Literal(true),
})
