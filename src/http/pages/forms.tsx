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
export function Field(props: { name: string; label: string; error?: string | undefined; hint?: string; id?: string } & InputProps) {
  const { name, label, error, hint, id: givenId, ...input } = props
  const id = givenId ?? `f-${name}`
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined
  return (
    <div class={error ? 'field has-error' : 'field'}>
      <label for={id}>{label}</label>
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      <input id={id} name={name} aria-invalid={error ? 'true' : undefined} aria-describedby={describedBy} {...input} />
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
