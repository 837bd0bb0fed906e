import { Page } from '../layout.tsx'
import { Field, FormError, PostForm } from '../forms.tsx'
import { utc } from '../format.ts'
import { SecretCard } from '../secret-card.tsx'

/** `/portal/key` (pure rendering): the user id, the masked key, "Reveal" and "Rotate", each after the password. */

export interface KeyFacts {
  userId: string
  keyPrefix: string
  keyCreatedAt: Date
  keyLastUsedAt: Date | null
  /** The key has a sealed copy this instance can open (keys issued before sealing do not). */
  revealable: boolean
}

/** A key shown in full: revealed after the password, or just issued by a rotation. */
export interface ShownKey {
  key: string
  how: 'revealed' | 'rotated'
}

/** Enough dots to read as "the rest of the key", not its length. */
const MASK = '•'.repeat(16)

export function KeyPage(props: {
  csrf: string
  email: string
  facts: KeyFacts
  shown?: ShownKey
  /** A refused password of "Reveal", shown at its Password field. */
  passwordError?: string
  /** A refused password of "Rotate", shown at its own Password field. */
  rotatePasswordError?: string
  formError?: string
  notice?: string | null
}) {
  const { facts, shown } = props
  return (
    <Page title="API key" area="portal" path="/portal/key" session={{ csrf: props.csrf, who: props.email }} flash={props.notice}>
      <p>
        Programs call the API with two headers: <code>X-Service-User-Id</code> (your user id) and <code>X-Service-Api-Key</code> (your key). Keep
        the key out of source control and client-side code.
      </p>
      <FormError message={props.formError} />
      {shown ? <ShownKeyCard shown={shown} /> : null}
      <div class="card">
        <dl class="facts">
          <dt>User id</dt>
          <dd>
            <code id="user-id">{facts.userId}</code>
          </dd>
          <dt>API key</dt>
          <dd>
            <code>
              {facts.keyPrefix}
              <span aria-hidden="true">{MASK}</span>
            </code>{' '}
            <span class="muted">(the rest is hidden)</span>
          </dd>
          <dt>Issued</dt>
          <dd>{utc(facts.keyCreatedAt)}</dd>
          <dt>Last used</dt>
          <dd>{utc(facts.keyLastUsedAt, 'Not used yet')}</dd>
        </dl>
      </div>
      {shown?.how === 'revealed' ? null : <RevealSection csrf={props.csrf} revealable={facts.revealable} error={props.passwordError} />}
      <h2>Rotate the key</h2>
      <p>
        Rotating issues a new key and the current one stops working at once, for every program that uses it. Rotate whenever the key may have
        leaked.
      </p>
      <PostForm
        action="/portal/key/rotate"
        csrf={props.csrf}
        class="narrow"
        label="Rotate the key"
        confirm="Rotate the API key? The current key stops working at once, for every program that uses it."
      >
        <Field
          id="f-rotate-password"
          name="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          required
          hint="Enter your portal password again to rotate the key."
          error={props.rotatePasswordError}
        />
        <button type="submit" class="secondary">
          Rotate
        </button>
      </PostForm>
    </Page>
  )
}

function ShownKeyCard(props: { shown: ShownKey }) {
  const rotated = props.shown.how === 'rotated'
  return (
    <SecretCard id="api-key" secret={props.shown.key} copyLabel="Copy key" heading={rotated ? 'Your new API key' : 'Your API key'}>
      {rotated
        ? 'The previous key has stopped working. Copy the new key now and put it wherever the old one was used; this page does not keep it.'
        : 'Copy it now; it is hidden again when you leave this page.'}
    </SecretCard>
  )
}

function RevealSection(props: { csrf: string; revealable: boolean; error?: string | undefined }) {
  if (!props.revealable) {
    return (
      <>
        <h2>Reveal the key</h2>
        <p>
          This key cannot be revealed: the portal keeps no copy of it that it can read (keys issued before the portal could reveal keys have
          none). If you no longer have it, rotate it below; the new key can be revealed here later.
        </p>
      </>
    )
  }
  return (
    <>
      <h2>Reveal the key</h2>
      <PostForm action="/portal/key/reveal" csrf={props.csrf} class="narrow" label="Reveal the key">
        <Field
          name="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          required
          hint="Enter your portal password again to see the whole key."
          error={props.error}
        />
        <button type="submit">Reveal</button>
      </PostForm>
    </>
  )
}
