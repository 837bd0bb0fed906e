import type { Static } from 'typebox'
import { PostForm } from '../forms.tsx'
import { utc } from '../format.ts'
import type { JobListSchema } from '../../schemas/admin/jobs.ts'
import { OpsPage, type OpsFrame } from './frame.tsx'

type Job = Static<typeof JobListSchema>['jobs'][number]

const ABOUT: Record<string, string> = {
  rollups: 'Closes each UTC day of reporting, shortly after midnight.',
  invoicing: 'Finalizes invoices: Mondays (weekly auto-pay), the 1st (Net 30) and the 15th (legacy), 06:00 UTC.',
  exports: 'Builds queued ledger exports.',
  expiry: 'Forgets expired previews, exports, sessions and links, daily.',
  'traffic-review': 'Scores the closed day\'s traffic at 00:10 UTC; voids what invalid sources and viewers billed and credits it back.',
}

/** `/ops/jobs`: each scheduled job, how far it has run, when it next falls due, and "Run now". */
export function JobsPage(props: { frame: OpsFrame; jobs: Job[] }) {
  return (
    <OpsPage frame={props.frame} title="Jobs" path="/ops/jobs">
      <p class="muted">"Run now" does what is due at the current service time, outside the schedule; it moves no watermark.</p>
      <div class="grid">
        {props.jobs.map((j) => (
          <article class="card" aria-labelledby={`h-${j.job}`}>
            <h2 id={`h-${j.job}`}>{j.job}</h2>
            <p class="muted">{ABOUT[j.job] ?? ''}</p>
            <dl class="facts">
              <dt>Ran through</dt>
              <dd>{utc(j.ran_through, 'not yet')}</dd>
              <dt>Last run</dt>
              <dd>{utc(j.last_run_at, 'not yet')}</dd>
              <dt>Next due</dt>
              <dd>{utc(j.next_due_at, 'on demand only')}</dd>
            </dl>
            <PostForm action={`/ops/jobs/${j.job}/run`} csrf={props.frame.csrf} label={`Run ${j.job} now`}>
              <button type="submit">Run now</button>
            </PostForm>
          </article>
        ))}
      </div>
    </OpsPage>
  )
}
