import assert from 'node:assert/strict'
import { test } from 'node:test'
import { configPatchProblems } from '../../src/domain/config-rules.ts'
import { ConfigPatchSchema } from '../../src/http/schemas/admin/config.ts'
import { checkBody } from '../../src/http/validation.ts'

/**
 * One home for the config rules: the operator API's PATCH schema is built
 * from domain/config-rules.ts, and the use case applies the same table. Both
 * must refuse the same patches with the same field and reason.
 */
const PATCHES: Record<string, unknown>[] = [
  {},
  { max_blocks: 0 },
  { max_blocks: 101 },
  { max_blocks: 2.5 },
  { max_blocks: '5' },
  { min_cpm_usd: 0 },
  { min_cpm_usd: -1 },
  { min_cpm_usd: 0.01 },
  { min_cpm_usd: 2e9 },
  { outstanding_balance_cap_usd: null },
  { outstanding_balance_cap_usd: -1 },
  { surface_split_enabled: 'yes' },
  { country_targeting_enabled: false },
  { block_impressions: 500 },
  { block_impressions: 1000 },
  { export_max_days: 32 },
  { export_max_rows: 250_001 },
  { export_schema_version: 'ledger-export-v4' },
  { export_schema_version: 'ledger-export-v3' },
  { export_schema_version: 'ledger-export-v1' },
  { stats_max_live_events: 0 },
  { read_rate_limit_per_min: 1_000_001 },
  { create_rate_limit_per_min: 10, nope: 1 },
]

test('the PATCH /admin/v1/config schema and the domain rules refuse the same patches, naming the same field and reason', () => {
  for (const patch of PATCHES) {
    const checked = checkBody(ConfigPatchSchema, patch)
    const schema = checked.ok ? null : checked.problem
    const [domain] = configPatchProblems(patch)
    const pick = (d: { field: string; reason: string } | null | undefined) => (d ? `${d.field}:${d.reason}` : 'ok')
    assert.equal(pick(domain), pick(schema), JSON.stringify(patch))
  }
})

test('every problem of a patch is listed, in field order', () => {
  assert.deepEqual(
    configPatchProblems({ max_blocks: 0, min_cpm_usd: 'x', extra: true }).map((p) => `${p.field}:${p.reason}`),
    ['extra:unknown_field', 'min_cpm_usd:invalid_type', 'max_blocks:below_minimum'],
  )
  assert.deepEqual(configPatchProblems({ min_cpm_usd: 0 })[0], { field: 'min_cpm_usd', reason: 'below_minimum', minimum: 0, exclusive: true })
})
