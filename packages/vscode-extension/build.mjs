/**
 * Builds the extension: src/extension.ts and what it imports (the client core, the Privacy Pass
 * library) bundled by esbuild into one CommonJS file, dist/extension.cjs (`vscode` is the host's).
 * With --package, also stages exactly what the .vsix holds in dist/vsix/ (the manifest under the
 * extension's name, `thinking-line`: the npm workspace is `thinking-line-vscode`, since the terminal
 * client is the npm package `thinking-line`) and packs it with @vscode/vsce into
 * dist/thinking-line-<version>.vsix.
 *
 *   npm run build -w packages/vscode-extension
 *   npm run package -w packages/vscode-extension
 */
import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const here = dirname(fileURLToPath(import.meta.url))
const dist = join(here, 'dist')

export async function bundle() {
  await build({
    entryPoints: [join(here, 'src/extension.ts')],
    outfile: join(dist, 'extension.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    minify: true,
    legalComments: 'none',
    // When the code began to load: activate() reports the load and its own time (diagnostics().loadMs).
    banner: { js: 'var __thinkingLineLoadStart = performance.now();' },
    logLevel: 'warning',
  })
  return join(dist, 'extension.cjs')
}

/** The manifest as the .vsix carries it: the extension's name, no workspace-only fields. */
export function vsixManifest() {
  const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'))
  for (const field of ['dependencies', 'devDependencies', 'scripts', 'private', 'type']) delete pkg[field]
  return { ...pkg, name: 'thinking-line' }
}

export function pack() {
  const stage = join(dist, 'vsix')
  rmSync(stage, { recursive: true, force: true })
  mkdirSync(join(stage, 'dist'), { recursive: true })
  mkdirSync(join(stage, 'media'), { recursive: true })
  const manifest = vsixManifest()
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  copyFileSync(join(dist, 'extension.cjs'), join(stage, 'dist/extension.cjs'))
  for (const file of ['README.md', 'LICENSE.txt', 'media/icon.png']) copyFileSync(join(here, file), join(stage, file))
  const require = createRequire(import.meta.url)
  const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce')
  const out = join(dist, `${manifest.name}-${manifest.version}.vsix`)
  const res = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--skip-license', '--out', out], { cwd: stage, stdio: 'inherit' })
  if (res.status !== 0) process.exit(res.status ?? 1)
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await bundle()
  if (process.argv.includes('--package')) console.log(pack())
}
