import { Type, type TProperties } from 'typebox'

/**
 * Form bodies of the HTML pages. Every field is text (forms post strings);
 * the service checks meaning and the page shows its errors next to the field.
 * The schema only bounds sizes and names, and it is kept out of the API's
 * OpenAPI description. Unknown fields are ignored: browsers add their own.
 */
const text = (maxLength = 2_000) => Type.String({ maxLength })

/** A form with these fields plus the CSRF token every state-changing form carries. */
export const Form = <P extends TProperties>(properties: P) => Type.Object({ _csrf: text(200), ...properties }, { additionalProperties: true })

export const FormText = text
export const OptionalText = (maxLength = 2_000) => Type.Optional(text(maxLength))

export const LoginForm = Form({ email: text(320), password: text(1_024), next: OptionalText(2_000) })
export const SignupForm = Form({ email: text(320), password: text(1_024) })
export const ForgotPasswordForm = Form({ email: text(320) })
export const SetPasswordForm = Form({ token: text(200), password: text(1_024) })
/** A button-only form (sign out, accept, pause…): the CSRF token alone. */
export const EmptyForm = Form({})

// The campaign page (routes/portal/campaign.ts). Generous bounds: the service's own length rule
// (1-120, 3-60 characters) answers beside the field; this only caps what a form may post.
export const RenameForm = Form({ name: text(8_000) })
export const AdLineForm = Form({ ad_line: text(8_000) })
