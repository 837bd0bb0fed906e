import { Webhook, WebhookVerificationError } from 'standardwebhooks'

export { WebhookVerificationError }

/** The headers of a webhook request, as Node's `IncomingHttpHeaders`, a fetch `Headers` or a plain object. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>

/**
 * Checks a webhook message as Standard Webhooks says: the `webhook-signature` (HMAC-SHA256 of
 * `id.timestamp.body` keyed by the endpoint's `whsec_…` secret, compared in constant time) and a
 * `webhook-timestamp` within five minutes of now. Pass the body exactly as received (a string or
 * the raw bytes), never a re-serialised object. Returns the parsed event; throws
 * `WebhookVerificationError` otherwise.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, body: string | Uint8Array): unknown {
  const wanted = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const
  const plain: Record<string, string> = {}
  for (const name of wanted) {
    const value = headers instanceof Headers ? headers.get(name) : headerValue(headers, name)
    if (value === null || value === undefined) throw new WebhookVerificationError(`missing ${name} header`)
    plain[name] = value
  }
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body)
  return new Webhook(secret).verify(text, plain)
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
  const value = key === undefined ? undefined : headers[key]
  return Array.isArray(value) ? value[0] : value
}
