import { PostForm } from '../forms.tsx'
import { OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'
import type { StoredKey } from '../../../platform/env.ts'

export interface ComponentRow {
  component: string
  /** What GET /v1/status shows (reporting reads degraded while rollups are behind). */
  shown: string
  /** What an operator set (operational when never set). */
  set: string
}

const STATES = ['operational', 'degraded', 'disabled'] as const
const LABEL: Record<string, string> = { operational: 'Operational', degraded: 'Degraded', disabled: 'Disabled', unknown: 'Unknown' }
const BADGE: Record<string, string> = { operational: 'badge ok', degraded: 'badge warn', disabled: 'badge bad', unknown: 'badge' }

/** `/ops/components`: each component of /v1/status with its state and a switch, and where the sealing keys are held. */
export function ComponentsPage(props: { frame: OpsFrame; components: ComponentRow[]; keysInStore: StoredKey[]; errors?: FieldErrors }) {
  return (
    <OpsPage frame={props.frame} title="Components" path="/ops/components">
      <p class="muted">
        The states GET /v1/status and the public status page show. <code>campaign_creation</code> disabled makes new orders answer 503;{' '}
        <code>exports</code> disabled pauses the export worker; <code>reporting</code> disabled hides metrics.
      </p>
      {props.errors?.form ? (
        <p class="form-error" role="alert">
          {props.errors.form}
        </p>
      ) : null}
      <div class="grid">
        {props.components.map((c) => (
          <PostForm action={`/ops/components/${c.component}`} csrf={props.frame.csrf} class="card" label={`State of ${c.component}`}>
            <fieldset>
              <legend>{c.component}</legend>
              <p>
                Now: <span class={BADGE[c.shown] ?? 'badge'}>{LABEL[c.shown] ?? c.shown}</span>
                {c.shown !== c.set ? <span class="muted"> (set: {LABEL[c.set] ?? c.set}; derived from the rollups)</span> : null}
              </p>
              {STATES.map((state) => (
                <div class="check">
                  <input type="radio" id={`state-${c.component}-${state}`} name="state" value={state} checked={c.set === state} />
                  <label for={`state-${c.component}-${state}`}>{LABEL[state]}</label>
                </div>
              ))}
            </fieldset>
            <button type="submit">Set state</button>
          </PostForm>
        ))}
      </div>
      <SealingKeys kept={props.keysInStore} />
    </OpsPage>
  )
}

/** Whether this instance keeps sealing keys in the database (the start-up warning says the same). */
function SealingKeys(props: { kept: StoredKey[] }) {
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">Sealing keys</h2>
      {props.kept.length === 0 ? (
        <p>
          <span class="badge ok">Outside the database</span> <code>OFFER_KEYS</code> and <code>KEY_SEALING_KEY</code> hold the sealing keys: a copy of the
          database opens and forges nothing they seal.
        </p>
      ) : (
        <>
          <p>
            <span class="badge warn">Kept in the database</span> Anyone with a copy of the database can open or forge what these keys seal:
          </p>
          <ul>
            {props.kept.map((k) => (
              <li>
                <code>{k.row}</code> seals {k.seals}. Set <code>{k.setting}</code>.
              </li>
            ))}
          </ul>
          <p class="muted">How to generate the keys and switch to them without losing what is sealed: <code>docs/sealing-keys.md</code> in the repository.</p>
        </>
      )}
    </section>
  )
}
