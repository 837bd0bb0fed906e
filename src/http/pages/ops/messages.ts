import type { Detail, FieldDetail } from '../../../domain/errors.ts'

/**
 * The console shows the API's refusals (`{field, reason, ...}`) in words,
 * next to the field they name. The reasons are the API's; only the words
 * are the page's.
 */
export type FieldErrors = Partial<Record<string, string>>

const num = (v: unknown) => (typeof v === 'number' ? v.toLocaleString('en-US', { maximumFractionDigits: 6 }) : String(v))

export function reasonMessage(d: FieldDetail): string {
  switch (d.reason) {
    case 'required':
    case 'empty':
    case 'blank':
    case 'too_short':
      return 'Enter a value.'
    case 'invalid_type':
      return d.expected === 'integer' ? 'Enter a whole number.' : d.expected === 'number' ? 'Enter a number.' : `Enter a ${String(d.expected)}.`
    case 'below_minimum':
      return d.exclusive ? `Enter more than ${num(d.minimum)}.` : `Enter ${num(d.minimum)} or more.`
    case 'above_maximum':
      return `Enter ${num(d.maximum)} or less.`
    case 'invalid_value':
      return Array.isArray(d.allowed) ? `Choose one of: ${d.allowed.map(String).join(', ')}.` : 'Choose one of the listed values.'
    case 'too_long':
      return `Use at most ${num(d.max_length ?? d.limit)} characters.`
    case 'control_characters':
      return 'Remove the control characters.'
    case 'too_many_combining_marks':
      return `Use at most ${num(d.max_combining_marks)} accents or other combining marks on one character.`
    case 'invalid_format':
      return (
        {
          address: 'Enter an IPv4 or IPv6 address, like 198.51.100.7.',
          now: 'Enter a UTC instant like 2026-11-09T06:00:00Z.',
          day: 'Enter a day like 2026-11-02.',
          email: 'Enter an email address like name@example.com.',
          billing_email: 'Enter an email address like name@example.com.',
          value: 'Enter an address or range like 203.0.113.0/24 or 2001:db8::/48, or a viewer key (letters, digits, - and _).',
        }[d.field] ?? 'This is not in the expected format.'
      )
    case 'host_bits_set':
      return 'Bits are set past the prefix: enter the network address, like 203.0.113.0/24.'
    case 'prefix_too_long':
      return 'An IPv6 range can be at most /64 long: a source is a whole /64.'
    case 'prefix_too_short':
      return 'A range this wide would stop nearly all billing: block at most an IPv4 /8 or an IPv6 /16.'
    case 'email_taken':
      return typeof d.user_id === 'string'
        ? `An account with this email already exists (${d.user_id}). Emails are compared whatever their letter case.`
        : 'An account with this email already exists. Emails are compared whatever their letter case.'
    case 'card_rejected_by_processor':
      return 'The payment processor refused this card.'
    case 'invoice_not_unpaid':
      return 'Only an unpaid invoice can be voided.'
    case 'rejection_only':
      return 'Give a reason only when rejecting.'
    case 'clock_moves_forward_only':
      return `The clock only moves forward: choose ${typeof d.current === 'string' ? d.current : 'the current time'} or later.`
    case 'unknown_field':
      return 'This field cannot be set.'
    default:
      return `Refused: ${d.reason.replaceAll('_', ' ')}.`
  }
}

/** An error of the API as the page shows it: by field, or for the whole form (`form`). */
export function errorsOf(detail: Detail): FieldErrors {
  if (typeof detail === 'string') return { form: detail.charAt(0).toUpperCase() + detail.slice(1) + (detail.endsWith('.') ? '' : '.') }
  return { [detail.field]: reasonMessage(detail) }
}
