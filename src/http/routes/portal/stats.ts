import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { StatsPage, lastDay, type StatsFormValues } from '../../pages/portal/stats.tsx'
import { describeStatsError, type StatsField, type StatsProblem } from '../../pages/portal/stats-messages.ts'
import { ApiError } from '../../../domain/errors.ts'
import { PAGE_LIMIT_MAX } from '../../../domain/pagination.ts'
import { GRANULARITIES, type Granularity } from '../../../domain/stats.ts'
import { DEFAULT_STATS_PRESET, presetOf, presetWindow } from '../../../domain/stats-presets.ts'
import { listCampaigns } from '../../../services/lists.ts'
import { getStats, readLiveBoundary, type StatsQuery } from '../../../services/stats.ts'

const StatsPageQuery = Type.Object({
  granularity: Type.Optional(Type.String({ maxLength: 20 })),
  start: Type.Optional(Type.String({ maxLength: 40 })),
  end: Type.Optional(Type.String({ maxLength: 40 })),
  campaign_id: Type.Optional(Type.String({ maxLength: 200 })),
})

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/

/** A calendar date typed in the form, as the UTC midnight that starts it; null when it is not one. */
function dayStart(text: string): number | null {
  const m = DATE.exec(text)
  if (!m) return null
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return new Date(ms).toISOString().slice(0, 10) === text ? ms : null
}

const DAY_MS = 86_400_000

/**
 * The stats form as a GET /v1/stats query. Start and End are UTC dates, both
 * included (End becomes the next midnight, the API's exclusive end); neither
 * is the default preset's window (today, domain/stats-presets.ts) at the
 * chosen granularity. Only the form's own syntax is checked here: windows,
 * limits and ownership are the stats service's.
 */
export function statsQueryFromForm(
  values: StatsFormValues,
  nowMs: number,
): { ok: true; query: StatsQuery } | { ok: false; errors: Partial<Record<StatsField, string>> } {
  const errors: Partial<Record<StatsField, string>> = {}
  const granularity = (values.granularity === '' ? 'day' : values.granularity) as Granularity
  if (!GRANULARITIES.includes(granularity)) errors.granularity = 'Choose by hour, by day or by month.'
  const bound = (field: 'start' | 'end', text: string, offset: number): string | undefined => {
    if (text === '') return undefined
    const ms = dayStart(text)
    if (ms === null) {
      errors[field] = 'Enter a date as YYYY-MM-DD, for example 2026-11-02.'
      return undefined
    }
    return new Date(ms + offset).toISOString()
  }
  const start = bound('start', values.start, 0)
  const end = bound('end', values.end, DAY_MS)
  if (Object.keys(errors).length > 0) return { ok: false, errors }
  const preset = presetWindow(DEFAULT_STATS_PRESET, nowMs).window
  const window =
    start === undefined && end === undefined
      ? { start: new Date(preset.startMs).toISOString(), end: new Date(preset.endMs).toISOString() }
      : { ...(start ? { start } : {}), ...(end ? { end } : {}) }
  return { ok: true, query: { granularity, ...window, ...(values.campaign_id === '' ? {} : { campaign_id: values.campaign_id }) } }
}

/** `/portal/stats`: the account's delivery by hour, day or month, through the use case of GET /v1/stats. */
export function portalStatsRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/portal/stats', { schema: { hide: true, querystring: StatsPageQuery } }, async (request, reply) => {
      const userId = request.advertiser.user_id
      const q = request.query
      const nowMs = deps.clock.nowMs()
      // Nothing asked: the default preset (today, by the hour).
      const asked = q.granularity !== undefined || q.start !== undefined || q.end !== undefined
      const granularity = asked ? (q.granularity ?? 'day') : presetWindow(DEFAULT_STATS_PRESET, nowMs).granularity
      const values: StatsFormValues = { granularity, start: q.start ?? '', end: q.end ?? '', campaign_id: q.campaign_id ?? '' }
      const campaigns = (await listCampaigns(deps, userId, { limit: PAGE_LIMIT_MAX })).items.map((g) => ({ campaign_id: g.campaign.campaign_id, name: g.campaign.name }))
      const page = { csrf: reply.generateCsrf(), email: request.advertiser.email, campaigns, nowMs, preset: null }

      const parsed = statsQueryFromForm(values, nowMs)
      if (!parsed.ok) return reply.page(StatsPage({ ...page, values, errors: parsed.errors, stats: null }), 400)
      try {
        const stats = await getStats(deps, userId, parsed.query)
        const measured = { startMs: Date.parse(stats.start), endMs: Date.parse(stats.end) }
        const boundary = await readLiveBoundary(deps, measured)
        // The form shows the window the service measured (the default one included).
        const shown = { ...values, granularity: stats.granularity, start: stats.start.slice(0, 10), end: lastDay(stats.end) }
        const preset = presetOf(stats.granularity, measured, nowMs)
        return reply.page(StatsPage({ ...page, preset, boundary, values: shown, errors: {}, stats }))
      } catch (err) {
        if (!(err instanceof ApiError) || ![400, 404, 503].includes(err.status)) throw err
        const problem: StatsProblem = describeStatsError(err)
        const errors = problem.field ? { [problem.field]: problem.message } : {}
        return reply.page(
          StatsPage({ ...page, values, errors, formError: problem.field ? null : problem.message, retry: problem.retry ?? null, stats: null }),
          err.status,
        )
      }
    })
  }
}
