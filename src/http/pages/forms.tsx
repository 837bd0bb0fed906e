import type { ComponentChildren, InputHTMLAttributes } from 'preact'

/** A form that changes state: POST with the CSRF token every such form carries (operations.md section 5). */
export function PostForm(props: { action: string; csrf: string; class?: string; confirm?: string; children?: ComponentChildren; label?: string }) {
  return (
    <form method="post" action={props.action} class={props.class} data-confirm={props.confirm} aria-label={props.label}>
      <input type="hidden" name="_csrf" value={props.csrf} />
      {props.children}
    </form>
  )
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'label' | 'name' | 'id'>

/**
 * A labelled input. Its error, when any, is shown right under it, tied to it
 * by aria-describedby, and the field is marked invalid.
 */
export function Field(props: { name: string; label: string; error?: string | undefined; hint?: string; id?: string; mark?: 'required' } & InputProps) {
  const { name, label, error, hint, id: givenId, mark, ...input } = props
  const id = givenId ?? `f-${name}`
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined
  return (
    <div class={error ? 'field has-error' : 'field'}>
      {mark === 'required' ? (
        // A field the server requires, marked beside its label (not in it: the label is the field's name) and
        // announced by aria-required; not the `required` attribute, so an empty submit still gets the error beside it.
        <div class="label-row">
          <label for={id}>{label}</label>
          <span class="required-mark" aria-hidden="true">
            Required
          </span>
        </div>
      ) : (
        <label for={id}>{label}</label>
      )}
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <input
        id={id}
        name={name}
        aria-invalid={error ? 'true' : undefined}
        aria-required={mark === 'required' ? 'true' : undefined}
        aria-describedby={describedBy}
        {...input}
      />
      {error ? (
        <p class="field-error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  )
}

/** An error about the whole form (not one field), announced when the page loads. */
export function FormError(props: { message?: string | undefined }) {
  return props.message ? (
    <p class="form-error" role="alert">
      {props.message}
    </p>
  ) : null
}

/** Email and password: the sign-in form of the portal and of the operator console. */
export function SignInForm(props: { action: string; csrf: string; email?: string | undefined; next?: string | undefined }) {
  return (
    <PostForm action={props.action} csrf={props.csrf}>
      {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
      <Field name="email" label="Email" type="email" autocomplete="username" required value={props.email ?? ''} />
      <Field name="password" label="Password" type="password" autocomplete="current-password" required />
      <button type="submit">Sign in</button>
    </PostForm>
  )
}

/** A new password (sign-up, first operator, reset): the one length rule, said next to the field. */
export function NewPasswordField(props: { minLength: number; error?: string | undefined; note?: string }) {
  return (
    <Field
      name="password"
      label="Password"
      type="password"
      autocomplete="new-password"
      required
      minLength={props.minLength}
      hint={`At least ${props.minLength} characters.${props.note ? ` ${props.note}` : ''}`}
      error={props.error}
    />
  )
}
