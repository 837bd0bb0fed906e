import { PostForm } from '../forms.tsx'
import { OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'

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

/** `/ops/components`: each component of /v1/status with its state and a switch. */
export function ComponentsPage(props: { frame: OpsFrame; components: ComponentRow[]; errors?: FieldErrors }) {
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
    </OpsPage>
  )
}
