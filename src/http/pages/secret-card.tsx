import type { ComponentChildren } from 'preact'

/**
 * A secret shown in full (an API key revealed or just issued, a new webhook signing secret): what to
 * do with it now, the value in a box that breaks anywhere (`.secret`), and a Copy button that
 * site.js answers (`data-copy`: the portal's key and webhook pages, the console's rotated key).
 *
 * With a `heading`, a section of its own with the secret in a card, on a page that shows more. Without
 * one, inline on a page that exists to show it (its heading says what it is), and the note is that
 * page's status message.
 */
export function SecretCard(props: {
  /** The value's element id, which the Copy button copies from (tests and site.js read it). */
  id: string
  secret: string
  /** "Copy key", "Copy secret". */
  copyLabel: string
  heading?: string
  /** Links after the Copy button. */
  actions?: ComponentChildren
  /** What to do with the secret now. */
  children: ComponentChildren
}) {
  const body = (
    <>
      {props.heading ? <p>{props.children}</p> : <p role="status">{props.children}</p>}
      <code id={props.id} class="secret">
        {props.secret}
      </code>
      <p class="actions">
        <button type="button" class="secondary" data-copy={props.id}>
          {props.copyLabel}
        </button>
        {props.actions}
      </p>
    </>
  )
  if (!props.heading) return body
  return (
    <section aria-labelledby={`${props.id}-h`}>
      <h2 id={`${props.id}-h`}>{props.heading}</h2>
      <div class="card">{body}</div>
    </section>
  )
}
