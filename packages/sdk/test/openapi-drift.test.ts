/**
 * The SDK's generated types are the served document's: this fails when a route schema changed and
 * `npm run sdk:types` was not run (and shows how to fix it).
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { useService } from '../../../test/helpers/api.ts'
import { SDK_TYPES_FILE, sdkTypesFor } from '../../../scripts/sdk-types.ts'

const h = useService()

test('packages/sdk/src/openapi.ts is what openapi-typescript makes of the served /v1/openapi.json', async () => {
  const served = await (await fetch(`${h.baseUrl}/v1/openapi.json`)).json()
  const committed = await readFile(SDK_TYPES_FILE, 'utf8')
  assert.ok(committed === (await sdkTypesFor(served)), 'packages/sdk/src/openapi.ts drifted from the served OpenAPI document: run `npm run sdk:types` and commit the result')
})
