/**
 * Attested views end to end (issue 48): the real bin every 300 ms against a service with the
 * development attester, on the system clock. The refresher fetches Privacy Pass tokens with the
 * JWT and spends one on the view report; the campaign bills exactly one attested view; the
 * advertiser's ledger-export-v4 carries its token, which the real `adctl ledger verify --tokens`
 * checks against the published keys, and one changed byte fails with exit 4.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { campaignBody, useService } from '../../../../test/helpers/api.ts'
import { exportCsv } from '../../../../test/helpers/exports.ts'
import { offersWritten, privateCountry } from '../../../../test/helpers/serving.ts'
import { adctl, freshConfigHome } from '../../../cli/test/run.ts'
import { invokeEvery, stateDirFor, unsent, waitFor } from './client.ts'

const h = useService({ CLOCK: 'system', ATTESTER: 'dev' }, { create_rate_limit_per_min: 1000, read_rate_limit_per_min: 100_000, outstanding_balance_cap_usd: null, attestation: 'required' })

test('a status line with a dev attester bills exactly one attested view after ~13 s shown; its exported token verifies, a changed byte does not', async () => {
  const adv = await h.advertiser()
  const country = privateCountry()
  const created = await adv.post('/v1/campaigns', campaignBody({ target_countries: [country], target_surface: 'terminal', impressions: 1000, ad_line: 'Attested by Acme', brand: 'Acme' }))
  assert.equal(created.status, 201, created.text)
  const campaignId = created.body.campaign_id
  const attest = await h.anonymous.post('/dev/attest', { subject: 'developer-1' })
  assert.equal(attest.status, 200, attest.text)

  const dir = stateDirFor()
  const env = { THINKING_LINE_URL: h.baseUrl, THINKING_LINE_STATE_DIR: dir, THINKING_LINE_COUNTRY: country, THINKING_LINE_ATTEST_TOKEN: attest.body.jwt }
  const runs = await invokeEvery(env, 300, 13_000)
  assert.ok(runs.some((r) => r.stdout.includes('Ad · Acme · Attested by Acme')), 'the ad was shown')

  const day = new Date()
  day.setUTCHours(0, 0, 0, 0)
  const end = new Date(day.getTime() + 86_400_000)
  const totals = async () => {
    await offersWritten(h)
    const res = await adv.get(`/v1/stats?campaign_id=${campaignId}&start=${day.toISOString()}&end=${end.toISOString()}&granularity=day`)
    assert.equal(res.status, 200, res.text)
    return res.body.totals
  }
  // attestation is `required`: only a view with a token can bill.
  assert.ok(await waitFor(async () => unsent(dir).length === 0 && (await totals()).billable_impressions === 1, 15_000, 1_000), `the attested view is billed: ${JSON.stringify(await totals())}`)
  const t = await totals()
  assert.equal(t.billable_impressions, 1)
  assert.equal(t.attested_billable_impressions, 1)

  const { header, rows } = await exportCsv(adv, { start: day.toISOString(), end: end.toISOString(), schema_version: 'ledger-export-v4' })
  const columns = header.split(',')
  const tokenAt = columns.indexOf('attestation_token')
  assert.equal(tokenAt, columns.length - 1)
  const attested = rows.filter((r) => r[tokenAt] !== '')
  assert.equal(attested.length, 1)
  assert.equal(attested[0]![columns.indexOf('event_type')], 'impression')

  const folder = mkdtempSync(join(tmpdir(), 'attested-export-'))
  const csv = [header, ...rows.map((r) => r.join(','))].join('\r\n') + '\r\n'
  const good = join(folder, 'good.csv')
  writeFileSync(good, csv)
  const cli = { XDG_CONFIG_HOME: freshConfigHome(), ADCTL_API_URL: h.baseUrl }
  const ok = await adctl(['ledger', 'verify', '--tokens', good], cli)
  assert.equal(ok.code, 0, ok.stderr)
  assert.match(ok.stdout, /^Verified 1 attestation token/)

  const token = Buffer.from(attested[0]![tokenAt]!, 'base64url')
  token[200] = token[200]! ^ 0x01
  const bad = join(folder, 'bad.csv')
  writeFileSync(bad, csv.replace(attested[0]![tokenAt]!, token.toString('base64url')))
  const refused = await adctl(['ledger', 'verify', '--tokens', bad], cli)
  assert.equal(refused.code, 4, refused.stderr)
  assert.match(refused.stderr, /NOT verified: row \d+/)
})
