import type { ComponentChildren } from 'preact'

/**
 * A labelled select and a labelled checkbox, built like `Field` (forms.tsx):
 * the hint and the error are tied to the control by aria-describedby, the
 * error is shown right under it and the control is marked invalid.
 */

function describedBy(id: string, hint: unknown, error: unknown): string | undefined {
  return [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined
}

function FieldError(props: { id: string; error?: string | undefined }) {
  return props.error ? (
    <p class="field-error" id={`${props.id}-error`}>
      {props.error}
    </p>
  ) : null
}

export interface Choice {
  value: string
  label: string
}

export function SelectField(props: { name: string; label: string; choices: Choice[]; value?: string | undefined; error?: string | undefined; hint?: ComponentChildren; id?: string }) {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label for={id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <select id={id} name={props.name} aria-invalid={props.error ? 'true' : undefined} aria-describedby={describedBy(id, props.hint, props.error)}>
        {props.choices.map((c) => (
          <option value={c.value} selected={c.value === props.value}>
            {c.label}
          </option>
        ))}
      </select>
      <FieldError id={id} error={props.error} />
    </div>
  )
}

/** A checkbox; an unchecked box is absent from the posted form. */
export function CheckboxField(props: { name: string; label: string; checked: boolean; error?: string | undefined; hint?: ComponentChildren; id?: string }) {
  const id = props.id ?? `f-${props.name}`
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <div class="check">
        <input
          type="checkbox"
          id={id}
          name={props.name}
          value="on"
          checked={props.checked}
          aria-invalid={props.error ? 'true' : undefined}
          aria-describedby={describedBy(id, props.hint, props.error)}
        />
        <label for={id}>{props.label}</label>
      </div>
      {props.hint ? (
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      ) : null}
      <FieldError id={id} error={props.error} />
    </div>
  )
}

/** On a failed submit: what went wrong, with a link to each field (the same message stands beside the field). */
export function ErrorSummary(props: { errors: { id: string; label: string; message: string }[]; form?: ComponentChildren }) {
  if (props.errors.length === 0 && !props.form) return null
  return (
    <div class="form-error" role="alert" aria-labelledby="error-summary-h">
      <h2 id="error-summary-h">There is a problem</h2>
      {props.form ? <p>{props.form}</p> : null}
      {props.errors.length > 0 ? (
        <ul>
          {props.errors.map((e) => (
            <li>
              <a href={`#${e.id}`}>
                {e.label}: {e.message}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
