import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ADMIN_TOKEN, startService, type TestService } from '../helpers/service.ts'
import { runSimulation } from '../../scripts/simulate.ts'

let svc: TestService
before(async () => {
  svc = await startService({})
})
after(() => svc.close())

test('the traffic simulator runs against a live service and the service bills what it expects', { timeout: 60_000 }, async () => {
  const summary = await runSimulation({
    url: svc.baseUrl,
    viewers: 20,
    durationS: 4,
    concurrency: 8,
    setup: true,
    adminToken: ADMIN_TOKEN,
    timeScale: 20,
    seed: 7,
  })
  assert.ok(summary.decisions.filled > 0, 'decisions were filled')
  assert.ok(summary.views.total > 0, 'views were sent')
  assert.equal(summary.errors.total - summary.errors.rateLimited, 0, JSON.stringify(summary.errors))
  assert.ok(summary.billing, 'setup reports server-side billing')
  assert.equal(summary.billing.billedBySetupCampaigns, summary.billing.expectedBillableForSetupCampaigns)
})
