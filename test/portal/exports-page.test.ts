import assert from 'node:assert/strict'
import { test } from 'node:test'
import { useService } from '../helpers/api.ts'
import { advance, deliver, privateCountry } from '../helpers/serving.ts'
import { csrfToken, decode, fieldError, fieldErrors, inputValue, labels, selectedOption, visibleText } from '../helpers/html.ts'
import { portalAdvertiser, signInAgain, type PageReply, type PortalAdvertiser } from '../helpers/portal.ts'
import { renderDocument } from '../../src/http/pages/render.ts'
import { ExportsPage } from '../../src/http/pages/portal/exports.tsx'
import { utcTimestamp } from '../../src/http/routes/portal/exports.ts'

const h = useService({}, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null })

const PAGE = '/portal/exports'
const V2_HEADER = 'timestamp,event_type,campaign_id,creative_id,surface,country,billable,debit_micros,processor_billing_country'

/** A campaign made through the portal's own form, targeted at `country`. */
async function portalCampaign(adv: PortalAdvertiser, country: string, name: string): Promise<string> {
  const form = await adv.browser.get('/portal/campaigns/new')
  const res = await adv.browser.post('/portal/campaigns/new', {
    _csrf: csrfToken(form.text),
    idempotency_key: inputValue(form.text, 'idempotency_key')!,
    name,
    ad_line: `Exported line ${country}`,
    cpm_usd: '2.50',
    blocks: '2',
    destination_url: 'https://acme.dev/',
    target_surface: 'extension',
    target_countries: country,
    optin_leaderboard: 'on',
  })
  assert.equal(res.status, 303, res.text.slice(0, 1000))
  return /^\/portal\/campaigns\/([^/?]+)/.exec(res.location!)![1]!
}

/** The rows of the exports table: each cell's text and the row's Download link, if any. */
function jobRows(page: PageReply): { cells: string[]; download: string | null }[] {
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.text)?.[1] ?? ''
  return [...body.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((tr) => {
    const link = /<a href="([^"]+)"[^>]*>\s*Download\s*<\/a>/.exec(tr[1]!)
    return { cells: [...tr[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((td) => visibleText(td[1]!).trim()), download: link ? decode(link[1]!) : null }
  })
}

async function request(adv: PortalAdvertiser, fields: Record<string, string>): Promise<PageReply> {
  return adv.browser.submit(PAGE, PAGE, fields)
}

async function runExports(): Promise<void> {
  const run = await h.admin.post('/admin/v1/jobs/exports/run')
  assert.equal(run.status, 200, run.text)
}

test('the page: Start, End and Campaign fields, the last week by default, no exports yet', async () => {
  const adv = await portalAdvertiser(h)
  const id = await portalCampaign(adv, privateCountry(), 'Filter me')
  const page = await adv.browser.get(PAGE)
  assert.equal(page.status, 200)
  assert.match(page.text, /<title>Exports · Advertiser portal<\/title>/)
  assert.equal(page.text.match(/<h1>/g)?.length, 1)
  for (const label of ['Start', 'End', 'Campaign']) assert.ok(labels(page.text).includes(label), label)
  assert.match(page.text, /<button type="submit">Request export<\/button>/)
  assert.equal(inputValue(page.text, 'start'), '2026-10-26T00:00')
  assert.equal(inputValue(page.text, 'end'), '2026-11-03T00:00')
  assert.equal(selectedOption(page.text, 'campaign'), '')
  assert.match(page.text, new RegExp(`<option value="${id}">Filter me</option>`))
  assert.match(visibleText(page.text), /No exports yet/)
  assert.doesNotMatch(page.text, /data-refresh/)
})

test('request → listed → the exports job runs → Download streams the API\'s artifact (header row, bytes, hash); the campaign filter applies', async () => {
  const adv = await portalAdvertiser(h)
  const country = privateCountry()
  const id = await portalCampaign(adv, country, 'Exported campaign')
  assert.equal(await deliver(h, country, 3), 3)

  const requested = await request(adv, { start: '2026-11-02T00:00', end: '2026-11-03T00:00', campaign: id })
  assert.equal(requested.status, 303, requested.text.slice(0, 2000))
  assert.equal(requested.location, '/portal/exports?notice=export_queued')

  const listed = await adv.browser.get(requested.location!)
  assert.match(visibleText(listed.text), /Export requested\./)
  const [job] = jobRows(listed)
  assert.ok(job, 'the job is listed')
  assert.equal(job.cells[1], '2026-11-02 00:00 UTC to 2026-11-03 00:00 UTC ledger-export-v2 Exported campaign')
  assert.match(job.cells[2]!, /^(Queued|Running|Ready)$/)
  assert.equal(job.cells[4], '2026-11-03 09:00 UTC', 'expires 24 hours after the request')

  await runExports()
  const ready = await adv.browser.get(PAGE)
  const [done] = jobRows(ready)
  assert.equal(done!.cells[2], 'Ready')
  assert.match(done!.cells[3]!, /^\d+ rows, /)
  assert.doesNotMatch(ready.text, /data-refresh/, 'nothing in progress: no reloading')
  assert.match(done!.download ?? '', /^\/portal\/exports\/exp_[^/]+\/download$/)

  const file = await adv.browser.get(done!.download!)
  assert.equal(file.status, 200)
  assert.equal(file.headers.get('content-type'), 'text/csv; charset=utf-8')
  assert.equal(file.headers.get('cache-control'), 'private, no-store')
  const exportId = /exports\/([^/]+)\/download/.exec(done!.download!)![1]!
  assert.equal(file.headers.get('content-disposition'), `attachment; filename="ledger-export-${exportId}.csv"`)
  const lines = file.text.slice(0, -2).split('\r\n')
  assert.equal(lines[0], V2_HEADER)
  assert.ok(lines.length > 1, 'the delivered events are rows')
  assert.ok(lines.slice(1).every((l) => l.split(',')[2] === id), 'only the chosen campaign')
  assert.equal(lines.filter((l) => l.split(',')[1] === 'impression').length, 3)

  const viaApi = await adv.api.get(`/v1/exports/${exportId}/download`)
  assert.equal(viaApi.status, 200)
  assert.equal(file.text, viaApi.text, 'the same artifact as the API download')
  assert.equal(file.headers.get('x-service-content-sha256'), viaApi.headers.get('x-service-content-sha256'))
  assert.equal(file.headers.get('x-service-export-schema'), 'ledger-export-v2')
  assert.equal(file.headers.get('content-length'), String(Buffer.byteLength(viaApi.text)))

  const status = await adv.api.get(`/v1/exports/${exportId}`)
  assert.deepEqual(status.body.filters, { start: '2026-11-02T00:00:00.000Z', end: '2026-11-03T00:00:00.000Z', campaign_ids: [id] })
})

test('another account\'s export and an unknown id are the same 404; an expired export is a 410 page and the list says Expired', async () => {
  const owner = await portalAdvertiser(h)
  const stranger = await portalAdvertiser(h)
  assert.equal((await request(owner, { start: '2026-11-01', end: '2026-11-02', campaign: '' })).status, 303)
  await runExports()
  const [job] = jobRows(await owner.browser.get(PAGE))
  const download = job!.download!
  assert.equal((await owner.browser.get(download)).status, 200)

  const foreign = await stranger.browser.get(download)
  assert.equal(foreign.status, 404)
  assert.match(foreign.headers.get('content-type') ?? '', /text\/html/)
  const unknown = await stranger.browser.get('/portal/exports/exp_doesnotexist/download')
  assert.equal(unknown.status, 404)
  assert.equal(visibleText(unknown.text), visibleText(foreign.text), 'indistinguishable')

  await advance(h, 24 * 3600)
  await signInAgain(owner) // the session's idle limit (12 h) passed too
  const gone = await owner.browser.get(download)
  assert.equal(gone.status, 410)
  assert.match(visibleText(gone.text), /This export expired \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC; its file is gone/)
  const [expired] = jobRows(await owner.browser.get(PAGE))
  assert.match(expired!.cells[4]!, /^Expired /)
  assert.equal(expired!.download, null)
})

test('errors at their fields, values kept: an interval over the limit, end before start, a date that is not one, a foreign campaign', async () => {
  const adv = await portalAdvertiser(h)
  const other = await portalAdvertiser(h)
  const foreignCampaign = await portalCampaign(other, privateCountry(), 'Theirs')
  const cases: [Record<string, string>, number, string, RegExp][] = [
    [{ start: '2026-10-01T00:00', end: '2026-11-02T00:00' }, 400, 'end', /^An export covers at most 31 days: move the end closer to the start\.$/],
    [{ start: '2026-11-02T00:00', end: '2026-11-01T00:00' }, 400, 'end', /^The end must be after the start\.$/],
    [{ start: 'yesterday', end: '2026-11-02T00:00' }, 400, 'start', /^Enter the start as a date and time in UTC/],
    [{ start: '', end: '2026-11-02T00:00' }, 400, 'start', /^Enter the start \(UTC\)\.$/],
    [{ start: '2026-11-01T00:00', end: '2026-11-02T00:00', campaign: foreignCampaign }, 404, 'campaign', /^Choose one of your campaigns/],
  ]
  for (const [fields, status, field, message] of cases) {
    const res = await request(adv, { campaign: '', ...fields })
    assert.equal(res.status, status, JSON.stringify(fields))
    assert.match(fieldError(res.text, field) ?? '', message, JSON.stringify(fields))
    assert.deepEqual(Object.keys(fieldErrors(res.text)), [field])
    assert.equal(inputValue(res.text, 'start') ?? '', fields.start)
    assert.equal(inputValue(res.text, 'end') ?? '', fields.end)
    assert.match(res.text, new RegExp(`<a href="#f-${field}">`), 'the error summary links to the field')
  }
  await h.config({ export_max_days: 7 })
  try {
    const res = await request(adv, { start: '2026-10-25T00:00', end: '2026-11-02T00:00', campaign: '' })
    assert.equal(fieldError(res.text, 'end'), 'An export covers at most 7 days: move the end closer to the start.')
  } finally {
    await h.config({ export_max_days: 31 })
  }
  assert.equal((await adv.api.get('/v1/exports')).body.exports.length, 0, 'nothing was queued')
})

test('exports disabled by the operator: a form error (503); POST without a CSRF token is 403', async () => {
  const adv = await portalAdvertiser(h)
  assert.equal((await h.admin.put('/admin/v1/components/exports', { state: 'disabled' })).status, 200)
  try {
    const res = await request(adv, { start: '2026-11-01', end: '2026-11-02', campaign: '' })
    assert.equal(res.status, 503)
    assert.match(visibleText(res.text), /Exports are switched off for the moment/)
  } finally {
    assert.equal((await h.admin.put('/admin/v1/components/exports', { state: 'operational' })).status, 200)
  }
  const forged = await adv.browser.request('POST', PAGE, { start: '2026-11-01', end: '2026-11-02' })
  assert.equal(forged.status, 403)
  assert.equal((await adv.api.get('/v1/exports')).body.exports.length, 0)
})

test('the page reloads itself (data-refresh) while a job is queued or running, and not otherwise', () => {
  const job = (status: 'queued' | 'running' | 'ready') => ({
    id: `exp_${status}`,
    status,
    status_url: `/v1/exports/exp_${status}`,
    schema_version: 'ledger-export-v2' as const,
    filters: { start: '2026-11-01T00:00:00.000Z', end: '2026-11-02T00:00:00.000Z' },
    row_count: status === 'ready' ? 0 : null,
    size_bytes: status === 'ready' ? 90 : null,
    sha256: null,
    error_code: null,
    created_at: '2026-11-02T09:00:00.000Z',
    finished_at: null,
    expires_at: '2026-11-03T09:00:00.000Z',
  })
  const render = (jobs: ReturnType<typeof job>[]) =>
    renderDocument(
      ExportsPage({ csrf: 't', email: 'a@example.dev', now: new Date('2026-11-02T10:00:00Z'), jobs, nextCursor: null, paged: false, campaigns: [], values: {} }),
    )
  assert.match(render([job('ready'), job('queued')]), /<body data-refresh="5">/)
  assert.match(render([job('running')]), /<body data-refresh="5">/)
  assert.doesNotMatch(render([job('ready')]), /data-refresh/)
})

test('form times are UTC: datetime-local and bare dates become RFC 3339 instants; anything else is left to the API', () => {
  assert.equal(utcTimestamp('2026-11-02T09:30'), '2026-11-02T09:30:00Z')
  assert.equal(utcTimestamp('2026-11-02 09:30:15'), '2026-11-02T09:30:15Z')
  assert.equal(utcTimestamp('2026-11-02'), '2026-11-02T00:00:00Z')
  assert.equal(utcTimestamp('2026-11-02T09:30:00+02:00'), '2026-11-02T09:30:00+02:00')
  assert.equal(utcTimestamp('  '), undefined)
})

test('Columns chooses the CSV schema (the API\'s schema_version): v3 adds non_billable_reason; an unknown one is refused at the field', async () => {
  const adv = await portalAdvertiser(h)
  const page = await adv.browser.get(PAGE)
  assert.ok(labels(page.text).includes('Columns'))
  assert.equal(selectedOption(page.text, 'schema_version'), '', 'the service default unless chosen')
  const requested = await request(adv, { start: '2026-11-02T00:00', end: '2026-11-03T00:00', campaign: '', schema_version: 'ledger-export-v3' })
  assert.equal(requested.status, 303, requested.text.slice(0, 2000))
  await runExports()
  const [row] = jobRows(await adv.browser.get(PAGE))
  assert.match(row!.cells[1]!, /ledger-export-v3/)
  const csv = await adv.browser.get(row!.download!)
  assert.equal(csv.status, 200)
  assert.equal(csv.text.split('\r\n')[0], `${V2_HEADER},non_billable_reason`)

  const refused = await request(adv, { start: '2026-11-02T00:00', end: '2026-11-03T00:00', campaign: '', schema_version: 'ledger-export-v9' })
  assert.equal(refused.status, 400)
  assert.match(fieldError(refused.text, 'schema_version') ?? '', /Choose one of the listed column sets/)
  assert.equal(selectedOption(refused.text, 'schema_version'), null, 'an unknown value is not an option')
})
