import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'

/**
 * The layer rules of eslint.config.js (docs/ARCHITECTURE.md (decision 0177)) on small
 * snippets placed as if in each folder, so a zone that stops matching fails
 * here instead of silently letting violations through. Type information is
 * not needed for these rules and would need the files on disk.
 */
const root = new URL('../..', import.meta.url).pathname
const eslint = new ESLint({ cwd: root, overrideConfig: tseslint.configs.disableTypeChecked })

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath })
  return result!.messages.map((m) => `${m.ruleId ?? 'parse'}: ${m.message}`)
}

const RESTRICTED = '@typescript-eslint/no-restricted-imports'

async function refused(filePath: string, code: string, rule = RESTRICTED): Promise<void> {
  const found = await problems(filePath, code)
  assert.ok(
    found.some((p) => p.startsWith(`${rule}:`)),
    `${filePath} should fail ${rule}:\n${code}\ngot: ${JSON.stringify(found)}`,
  )
}

async function allowed(filePath: string, code: string): Promise<void> {
  assert.deepEqual(await problems(filePath, code), [], `${filePath} should pass:\n${code}`)
}

test('lint: routes and plugins never touch the store, not even its types', async () => {
  await refused('src/http/routes/v1/probe.ts', "import { findAccount } from '../../../store/accounts.ts'\nvoid findAccount\n")
  await refused('src/http/routes/v1/probe.ts', "import type { AccountRow } from '../../../store/accounts.ts'\nexport type A = AccountRow\n")
  await refused('src/http/plugins/probe.ts', "export { findAccount } from '../../store/accounts.ts'\n")
  await refused('src/http/routes/admin/probe.ts', "import { readConfig } from '../../../store/settings.ts'\nvoid readConfig\n")
  await allowed(
    'src/http/routes/v1/probe.ts',
    "import { readCampaign } from '../../../services/campaigns.ts'\nimport type { CampaignGraph } from '../../../services/read-models.ts'\n" +
      'export type G = CampaignGraph\nvoid readCampaign\n',
  )
})

test('lint: SQL only in src/store (no kysely import, no query builder calls elsewhere)', async () => {
  await refused('src/services/probe.ts', "import { sql } from 'kysely'\nvoid sql\n")
  await refused('src/http/app-probe.ts', "import type { Kysely } from 'kysely'\nexport type K = Kysely<object>\n")
  await refused(
    'src/services/probe.ts',
    "export const q = (ctx: { db: { selectFrom(t: string): unknown } }) => ctx.db.selectFrom('creatives')\n",
    'no-restricted-syntax',
  )
  await refused('src/http/probe.ts', 'export const ready = (db: { selectNoFrom(): unknown }) => db.selectNoFrom()\n', 'no-restricted-syntax')
  await refused('src/http/routes/v1/probe.ts', 'export const handle = (deps: { db: unknown }) => deps.db\n', 'no-restricted-syntax')
  await allowed('src/store/probe.ts', "import { sql } from 'kysely'\nexport const one = sql`select 1`\n")
})

test('lint: the store and the domain never import upwards', async () => {
  await refused('src/store/probe.ts', "import type { Offer } from '../serving/offer-token.ts'\nexport type O = Offer\n")
  await refused('src/store/probe.ts', "import { requireComponent } from '../services/status.ts'\nvoid requireComponent\n")
  await refused('src/store/probe.ts', "import type { App } from '../http/types.ts'\nexport type A = App\n")
  await allowed('src/store/probe.ts', "import type { Offer } from '../domain/offer.ts'\nexport type O = Offer\n")
  for (const folder of ['http', 'services', 'store', 'serving', 'jobs', 'platform', 'start']) {
    await refused('src/domain/probe.ts', `import * as x from '../${folder}/x.ts'\nvoid x\n`)
  }
  await refused('src/domain/probe.ts', "import { Type } from 'typebox'\nvoid Type\n")
  await allowed('src/domain/probe.ts', "import { invalid } from './errors.ts'\nvoid invalid\n")
  await refused('src/services/probe.ts', "import { presentCampaign } from '../http/presenters.ts'\nvoid presentCampaign\n")
})

test('lint: service time comes from the Clock', async () => {
  await refused('src/services/probe.ts', 'export const t = Date.now()\n', 'no-restricted-properties')
})
