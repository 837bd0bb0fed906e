/**
 * Builds the extension: src/extension.ts and what it imports (the client core) bundled by esbuild
 * into one CommonJS file, dist/extension.cjs (`vscode` is the host's), and the Privacy Pass library
 * into dist/privacypass.mjs, loaded only when an attester is set (below).
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

/**
 * The Privacy Pass library (about 200 KB) is needed only with an attester: it goes in a file of its
 * own, dist/privacypass.mjs, imported the first time a token is made, so loading the extension does
 * not parse it.
 */
const privacyPassApart = {
  name: 'privacy-pass-apart',
  setup(b) {
    b.onResolve({ filter: /^@cloudflare\/privacypass-ts$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './privacypass.mjs', external: true } : undefined))
  },
}

export async function bundle() {
  // An ES module (a CommonJS bundle of it loses its exports to a dependency that assigns module.exports).
  await build({
    stdin: { contents: "export * from '@cloudflare/privacypass-ts'", resolveDir: here },
    outfile: join(dist, 'privacypass.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  })
  await build({
    plugins: [privacyPassApart],
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
  return { ...pkg, name: 'thinking-line', files: ['dist', 'media/icon.png', 'README.md', 'LICENSE.txt'] }
}

export function pack() {
  const stage = join(dist, 'vsix')
  rmSync(stage, { recursive: true, force: true })
  mkdirSync(join(stage, 'dist'), { recursive: true })
  mkdirSync(join(stage, 'media'), { recursive: true })
  const manifest = vsixManifest()
  writeFileSync(join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)
  for (const file of ['extension.cjs', 'privacypass.mjs']) copyFileSync(join(dist, file), join(stage, 'dist', file))
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
