import type { Static } from 'typebox'
import { Field, FormError } from '../forms.tsx'
import type { TrafficDaySchema } from '../../schemas/admin/traffic.ts'
import { INVALID_SCORE } from '../../../domain/traffic-quality.ts'
import { OpsPage, type OpsFrame } from './frame.tsx'
import type { FieldErrors } from './messages.ts'
import { BlockList, type BlockShown } from './traffic-block-list.tsx'
import { TrafficRanking } from './traffic-ranking.tsx'

type TrafficDay = Static<typeof TrafficDaySchema>

/**
 * `/ops/traffic`: one UTC day's sources and viewers ranked by the review's score, a "Block" button
 * on each, the block list with "Remove" and an add form, and the credits the review issued. The
 * sections are traffic-ranking.tsx's and traffic-block-list.tsx's; this lays them out.
 */
export function TrafficPage(props: {
  frame: OpsFrame
  /** The day as asked (shown in the picker), and its figures; null when the day was refused. */
  day: string
  traffic: TrafficDay | null
  blocks: BlockShown[]
  errors?: FieldErrors
  values?: Partial<Record<string, string>>
}) {
  const errors = props.errors ?? {}
  const csrf = props.frame.csrf
  // An error about no field of the page's forms (say, an entry removed meanwhile) is shown above them.
  const elsewhere = Object.entries(errors).find(([field]) => !['form', 'day', 'kind', 'value', 'note'].includes(field))
  return (
    <OpsPage frame={props.frame} title="Traffic quality" path="/ops/traffic">
      <p class="muted">
        Each source and viewer of a UTC day is scored by the review signals; {INVALID_SCORE} or more is invalid, and the daily review voids its
        billable units and credits the advertisers.
      </p>
      <FormError message={errors.form ?? (elsewhere ? `${elsewhere[0]}: ${elsewhere[1]}` : undefined)} />
      <form method="get" action="/ops/traffic" class="inline-form" aria-label="Choose a day">
        <Field type="date" name="day" label="Day" value={props.day} hint="A UTC day; yesterday when empty." error={errors.day} />
        <button type="submit">Show day</button>
      </form>
      <nav class="on-page" aria-label="On this page">
        <ul>
          {props.traffic ? (
            <>
              <li>
                <a href="#sources-h">Sources</a>
              </li>
              <li>
                <a href="#viewers-h">Viewers</a>
              </li>
              <li>
                <a href="#credits-h">Credits issued</a>
              </li>
            </>
          ) : null}
          <li>
            <a href="#blocks-h">Block list</a>
          </li>
        </ul>
      </nav>
      {props.traffic ? <TrafficRanking csrf={csrf} traffic={props.traffic} /> : null}
      <BlockList csrf={csrf} day={props.traffic?.day ?? ''} blocks={props.blocks} errors={errors} values={props.values ?? {}} />
    </OpsPage>
  )
}
