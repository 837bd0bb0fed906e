import { fileURLToPath, URL } from 'node:url'
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * Layers (docs/ARCHITECTURE.md (decision 0174)): http → services (and the serving
 * engine, the jobs) → domain; services → store; the store and the domain never
 * import upwards; SQL only in src/store. Each folder gets one block, because a
 * later block's options for a rule replace (never merge with) an earlier one's.
 */
const LAYERS = ['http', 'services', 'serving', 'jobs', 'store', 'platform', 'domain', 'start']

/** Why an import of that folder is refused. */
const WHY = {
  http: 'Nothing below src/http imports the transport.',
  services: 'Use cases are called by the transport and the jobs, never from below.',
  serving: 'The serving engine is used by the transport and start-up, never from below.',
  jobs: 'Jobs run on the scheduler; services, the engine and the store never call them.',
  store: 'Routes and plugins reach data through src/services, never the store (not even its types).',
  platform: 'Infrastructure (clock, ids, counters) is for the services; the domain and the store take values.',
  domain: 'src/platform is infrastructure and knows no business rule.',
  start: 'src/start wires the service together; nothing imports it.',
}

/** Packages that speak SQL: only src/store opens a connection or writes a query. */
const SQL_PACKAGES = ['kysely', 'pg', '@electric-sql/pglite', '@electric-sql/pglite/*']
/** The transport's packages: no layer below src/http parses a request or a schema. */
const HTTP_PACKAGES = ['fastify', '@fastify/*', 'typebox', 'ajv', 'ajv-formats']

function layer(folder, { forbid = [], packages = [], allowKysely = false }) {
  const patterns = forbid.map((l) => ({ group: [`**/${l}/**`], message: WHY[l] }))
  if (!allowKysely) patterns.push({ group: SQL_PACKAGES, message: 'SQL lives in src/store: add a store function and call it from a service.' })
  if (packages.length > 0) patterns.push({ group: packages, message: `${folder} does not depend on the transport.` })
  return {
    name: `layers/${folder}`,
    files: [`src/${folder}/**/*.{ts,tsx}`],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns }] },
  }
}

/** Query-builder entry points: with the package import forbidden, these would still reach the store through `ctx.db`. */
const QUERY_CALL = {
  selector: 'CallExpression > MemberExpression.callee[property.name=/^(selectFrom|selectNoFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|executeQuery)$/]',
  message: 'SQL lives in src/store: add a store function and call it from a service.',
}
/** Routes and plugins hand their context to a service; the store handle itself is not theirs to use. */
const STORE_HANDLE = {
  selector: 'MemberExpression[property.name="db"]',
  message: 'Routes and plugins reach data through src/services: pass the context (deps) to a service instead of using `db`.',
}
const noQueries = [
  { name: 'layers/no-queries-outside-store', files: ['src/**/*.{ts,tsx}'], ignores: ['src/store/**', 'src/http/**'], rules: { 'no-restricted-syntax': ['error', QUERY_CALL] } },
  { name: 'layers/no-store-handle-in-http', files: ['src/http/**/*.{ts,tsx}'], rules: { 'no-restricted-syntax': ['error', QUERY_CALL, STORE_HANDLE] } },
]

const others = (...allowed) => LAYERS.filter((l) => !allowed.includes(l))

export default tseslint.config(
  { ignores: ['node_modules', 'data', 'coverage', '.tmp', 'dist', 'packages/*/dist', 'packages/sdk/src/openapi.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // One clock: all service time comes from src/platform/clock.ts. One client address: decided once per
      // request, canonical (src/http/plugins/client-address.ts).
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'Read time from the service Clock.' },
        { object: 'request', property: 'ip', message: 'Read request.clientAddress: canonical, decided once per request (src/http/plugins/client-address.ts).' },
      ],
    },
  },
  {
    // Type-checked rules over the service's code. Tests, bench and scripts keep the plain set: they read
    // JSON bodies loosely (hundreds of no-unsafe-* hits) and node:test's test() returns a promise nobody awaits.
    name: 'type-checked/src',
    files: ['src/**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: fileURLToPath(new URL('.', import.meta.url)) },
    },
    rules: {
      // Fastify plugins, hooks and handlers, and the async ports (CounterStore, PaymentProcessor), are
      // async by contract: an async function without `await` is how they return a promise.
      '@typescript-eslint/require-await': 'off',
    },
  },
  layer('http', { forbid: ['store', 'start'] }),
  layer('services', { forbid: ['http', 'jobs', 'start'], packages: HTTP_PACKAGES }),
  layer('serving', { forbid: ['http', 'jobs', 'start'] }),
  layer('jobs', { forbid: ['http', 'start'] }),
  layer('store', { forbid: others('store', 'domain'), packages: HTTP_PACKAGES, allowKysely: true }),
  layer('platform', { forbid: others('platform'), packages: ['typebox'] }),
  layer('domain', { forbid: others('domain'), packages: HTTP_PACKAGES }),
  layer('start', { forbid: [] }),
  ...noQueries,
  {
    // The pages' enhancement script runs in the browser, as a classic script.
    files: ['src/http/pages/assets/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', setTimeout: 'readonly', setInterval: 'readonly', clearTimeout: 'readonly', fetch: 'readonly', URL: 'readonly', URLSearchParams: 'readonly', Element: 'readonly', HTMLElement: 'readonly', HTMLFormElement: 'readonly', HTMLInputElement: 'readonly' } },
  },
  {
    // Tests read JSON bodies loosely; the OpenAPI validator checks their shape.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/platform/clock.ts', 'scripts/**', 'bench/**', 'tools/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The terminal status-line client (packages/status-line) and the client core it shares with the editor
    // extension (packages/ad-client): plain ES modules for Node, no build step, typed by JSDoc (tsc checks
    // them); they have no service clock, their time is the machine's.
    files: ['packages/status-line/**', 'packages/ad-client/**'],
    languageOptions: {
      globals: { process: 'readonly', Buffer: 'readonly', URL: 'readonly', fetch: 'readonly', AbortSignal: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', SharedArrayBuffer: 'readonly', Atomics: 'readonly', NodeJS: 'readonly' },
    },
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The editor extension runs in VS Code's extension host: its time is the machine's, not the service clock.
    files: ['packages/vscode-extension/**'],
    languageOptions: { globals: { process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', performance: 'readonly', console: 'readonly' } },
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The SDK and adctl run on the advertiser's machine: their time is the machine's, not the service clock.
    files: ['packages/sdk/**', 'packages/cli/**'],
    languageOptions: { globals: { process: 'readonly' } },
    rules: { 'no-restricted-properties': 'off' },
  },
  // ---------------------------------------------------------------------------------------------------------------
)
