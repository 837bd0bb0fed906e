import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Advertiser } from './api.ts'

/** Requests an export, waits until it is ready and downloads it: the job, the header line and each row's fields. */
export async function exportCsv(adv: Advertiser, body: Record<string, unknown>): Promise<{ job: any; header: string; rows: string[][] }> {
  const queued = await adv.post('/v1/exports', body)
  assert.equal(queued.status, 202, queued.text)
  for (let i = 0; i < 400; i++) {
    const job = (await adv.get(`/v1/exports/${queued.body.id}`)).body
    if (job.status === 'ready') {
      const res = await adv.get<string>(`/v1/exports/${job.id}/download`)
      assert.equal(res.status, 200, res.text)
      assert.equal(res.headers.get('x-service-export-schema'), job.schema_version)
      const [header, ...lines] = res.text.slice(0, -2).split('\r\n')
      assert.equal(lines.length, job.row_count)
      return { job, header: header!, rows: lines.map((l) => l.split(',')) }
    }
    assert.notEqual(job.status, 'failed', JSON.stringify(job))
    await sleep(10)
  }
  assert.fail('the export did not finish')
}
