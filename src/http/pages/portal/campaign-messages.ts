import type { ApiError, FieldDetail } from '../../../domain/errors.ts'

/**
 * The words a page shows for a refusal of the campaign services. The rules
 * and their reasons stay in the services and the domain; this only puts a
 * reason into a sentence (and says where it belongs: beside a field, or
 * above the forms with a link to the next step).
 */

export type CampaignField = 'name' | 'ad_line'

export interface ActionError {
  /** The field the message goes beside; absent: a form-level error. */
  field?: CampaignField
  message: string
  /** Where the advertiser can fix it. */
  next?: { href: string; text: string }
}

const words = (code: string) => code.replaceAll('_', ' ')
const sentence = (text: string) => {
  const t = text.replace(/\bcancelled_user\b/g, 'cancelled').trim()
  const s = t.charAt(0).toUpperCase() + t.slice(1)
  return /[.!?]$/.test(s) ? s : `${s}.`
}

/** The edge's and the text rules' reasons (domain/input-rules.ts, domain/text-rules.ts), for either field. */
function textMessage(reason: string, d: FieldDetail, what: string): string | null {
  const min = typeof d.min_length === 'number' ? d.min_length : null
  const max = typeof d.max_length === 'number' ? d.max_length : null
  switch (reason) {
    case 'empty':
      return `Enter ${what}.`
    case 'too_short':
      return min !== null && min > 1 ? `Use at least ${min} characters.` : `Enter ${what}.`
    case 'too_long':
      return max !== null ? `Use at most ${max} characters.` : 'That is too long.'
    case 'blank':
      return `Enter ${what} with visible characters, not only spaces.`
    case 'control_characters':
      return 'Remove the control characters (tabs, line breaks and other invisible codes).'
    case 'invalid_unicode':
      return 'Remove the characters that are not valid text.'
    case 'too_many_combining_marks':
      return `Use at most ${typeof d.max_combining_marks === 'number' ? d.max_combining_marks : 4} accents or other combining marks on one character.`
    case 'invisible_characters':
      return `Remove the invisible characters (${typeof d.found === 'string' ? `${d.found}, ` : ''}zero-width spaces, direction marks and the like).`
    default:
      return null
  }
}

function fieldMessage(field: CampaignField, d: FieldDetail): string {
  const what = field === 'name' ? 'a name' : 'an ad line'
  if (field === 'ad_line' && d.reason === 'content_safety') {
    const category = typeof d.category === 'string' ? ` (${words(d.category)})` : ''
    return `The content-safety screen refused this line${category}. Write a different line.`
  }
  return textMessage(d.reason, d, what) ?? sentence(words(d.reason))
}

/** A refusal of a campaign action (400, 402, 403, 409) as a page shows it. */
export function describeActionError(err: ApiError): ActionError {
  const d = err.detail
  if (typeof d !== 'string' && (d.field === 'name' || d.field === 'ad_line')) return { field: d.field, message: fieldMessage(d.field, d) }
  if (err.status === 403) {
    return { message: sentence(typeof d === 'string' ? d : words(d.reason)), next: { href: '/portal', text: 'See what is missing' } }
  }
  if (err.status === 402) {
    const reason = typeof d === 'string' ? d : words(d.reason)
    return { message: `Billing blocks campaign changes: ${reason}.`, next: { href: '/portal/billing', text: 'Go to billing' } }
  }
  return { message: sentence(typeof d === 'string' ? d : `${words(d.field)}: ${words(d.reason)}`) }
}
