/**
 * The SDK outside this repository (issue 51): `npm pack -w packages/sdk` makes a tarball that a
 * project elsewhere installs (here offline, its dependencies from the npm cache the root install
 * filled, pinned by the root lockfile's integrity) and imports, both entry points.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

interface LockEntry {
  version?: string
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  dev?: boolean
  devOptional?: boolean
}

test('npm pack makes a tarball that installs outside the repository and imports', () => {
  const project = mkdtempSync(join(tmpdir(), 'sdk-outside-'))
  execFileSync('npm', ['pack', '-w', 'packages/sdk', '--pack-destination', project, '--silent'], { cwd: ROOT, stdio: 'pipe' })
  const tarball = readdirSync(project).find((f) => f.endsWith('.tgz'))
  assert.ok(tarball, 'npm pack wrote a tarball')
  const listing = execFileSync('tar', ['-tzf', join(project, tarball)], { encoding: 'utf8' })
  for (const file of ['package/package.json', 'package/README.md', 'package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/client-only.js']) assert.ok(listing.includes(file), file)

  // The project's lockfile: the SDK from the tarball, its dependencies as the root lockfile pins them.
  const sdk: { version: string; dependencies: Record<string, string> } = JSON.parse(readFileSync(join(ROOT, 'packages/sdk/package.json'), 'utf8'))
  const lock: { packages: Record<string, LockEntry> } = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'))
  const packages: Record<string, unknown> = {
    '': { name: 'sdk-outside', dependencies: { 'advertiser-campaign-sdk': `file:${tarball}` } },
    'node_modules/advertiser-campaign-sdk': { version: sdk.version, resolved: `file:${tarball}`, dependencies: sdk.dependencies },
  }
  const add = (name: string) => {
    const key = `node_modules/${name}`
    const entry = lock.packages[key]
    if (!entry || packages[key]) return
    packages[key] = { ...entry, dev: undefined, devOptional: undefined }
    for (const nested of Object.keys(lock.packages).filter((k) => k.startsWith(`${key}/node_modules/`))) packages[nested] = lock.packages[nested]
    for (const dep of Object.keys({ ...entry.dependencies, ...entry.peerDependencies, ...entry.optionalDependencies })) add(dep)
  }
  Object.keys(sdk.dependencies).forEach(add)
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'sdk-outside', private: true, type: 'module', dependencies: { 'advertiser-campaign-sdk': `file:${tarball}` } }))
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ name: 'sdk-outside', lockfileVersion: 3, requires: true, packages }))
  execFileSync('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--silent'], { cwd: project, stdio: 'pipe' })

  const script = `
    import { AdvertiserClient, ApiError, verifyWebhook } from 'advertiser-campaign-sdk'
    import { AdvertiserClient as Lean } from 'advertiser-campaign-sdk/client'
    const c = new AdvertiserClient({ baseUrl: 'https://ads.example.com', userId: 'usr_1', apiKey: 'sk_live_x' })
    console.log(JSON.stringify({ base: c.baseUrl, same: Lean === AdvertiserClient, reason: new ApiError(404, 'campaign not found').reason, verify: typeof verifyWebhook }))
  `
  writeFileSync(join(project, 'use.mjs'), script)
  const out = JSON.parse(execFileSync(process.execPath, ['use.mjs'], { cwd: project, encoding: 'utf8' }))
  assert.deepEqual(out, { base: 'https://ads.example.com/v1', same: true, reason: 'not_found', verify: 'function' })
  assert.ok(!readdirSync(join(project, 'node_modules')).includes('typescript'), 'only what the SDK needs was installed')
})
