import { Form, FormText, OptionalText } from './forms.ts'

/**
 * Form bodies of the operator console (beside the portal's in forms.ts; same
 * rule: every field is text, sizes and names only). The console turns them
 * into the operator API's bodies and the API's own schemas and services judge them.
 */
export const OpsSetupForm = Form({ token: FormText(1_024), email: FormText(320), password: FormText(1_024) })
export const OpsLoginForm = Form({ email: FormText(320), password: FormText(1_024), next: OptionalText(2_000) })
/** The accounts page's "Create an account": the operator API's AccountCreate, as text. */
export const AccountCreateForm = Form({ email: FormText(320), billing_email: OptionalText(320) })
export const SwitchForm = Form({ value: FormText(10) })
export const CardForm = Form({ card_number: FormText(64) })
export const Net30Form = Form({ credit_limit_cents: FormText(40) })
export const HoldForm = Form({ hold: FormText(20) })
export const CreditForm = Form({ amount_cents: FormText(40), memo: FormText(2_000) })
export const UnlockForm = Form({ address: FormText(200) })
export const ModerationForm = Form({ status: FormText(20), reason: OptionalText(4_000) })
export const ComponentForm = Form({ state: FormText(20) })
export const VoidForm = Form({ memo: FormText(2_000) })
export const AdvanceForm = Form({ advance_seconds: FormText(40) })
export const SetClockForm = Form({ now: FormText(80) })
/** The traffic page's block forms (the add form, and each row's "Block" button): the entry, and the day to come back to. */
export const TrafficBlockForm = Form({ kind: FormText(20), value: FormText(200), note: OptionalText(2_000), day: OptionalText(40) })
/** "Remove" on the block list: the day to come back to. */
export const TrafficUnblockForm = Form({ day: OptionalText(40) })
/** The config page posts every field of the config; the route reads them by name. */
export const ConfigForm = Form({})
