import { Field, FormError, PostForm } from '../forms.tsx'
import { utc } from '../format.ts'
import { OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'

/** `/ops/clock` (CLOCK=manual only): the service time, and moving it forward by an interval or to an instant. */
export function ClockPage(props: { frame: OpsFrame; now: Date; errors?: FieldErrors; values?: Partial<Record<string, string>> }) {
  const errors = props.errors ?? {}
  return (
    <OpsPage frame={props.frame} title="Clock" heading="Service clock" path="/ops/clock">
      <p>
        Service time: <strong>{utc(props.now)}</strong> (<code>{props.now.toISOString()}</code>). It moves only forward; every job that falls
        due on the way runs first, in time order.
      </p>
      <FormError message={errors.form} />
      <div class="grid">
        <PostForm action="/ops/clock/advance" csrf={props.frame.csrf} class="card" label="Advance the clock">
          <Field
            type="text"
            name="advance_seconds"
            label="Advance by (seconds)"
            inputMode="decimal"
            required
            value={props.values?.advance_seconds ?? ''}
            hint="3600 is an hour, 86400 a day."
            error={errors.advance_seconds}
          />
          <button type="submit">Advance</button>
        </PostForm>
        <PostForm action="/ops/clock/set" csrf={props.frame.csrf} class="card" label="Set the clock">
          <Field type="text" name="now" label="Set to (UTC)" required value={props.values?.now ?? ''} hint="An instant like 2026-11-09T06:00:00Z." error={errors.now} />
          <button type="submit">Set clock</button>
        </PostForm>
      </div>
    </OpsPage>
  )
}
