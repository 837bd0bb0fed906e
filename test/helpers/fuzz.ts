/**
 * A small schema-guided request fuzzer: operations come from the served
 * OpenAPI document (/v1) or the route catalogue (/admin/v1, /serve/v1); each
 * request starts valid (values generated from the JSON Schema, real ids where
 * the service has them) and is then mutated: hostile text and numbers, wrong
 * types, broken JSON and encodings, unknown fields and parameters, wrong
 * methods and paths, missing credentials. Deterministic for a seed.
 */
import type { RouteEntry } from '../../src/http/app.ts'

type Schema = Record<string, any>
export type Rng = () => number

/** mulberry32: a tiny seeded PRNG, so a failing run reproduces from its seed. */
export function seeded(seed: number): Rng {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface Operation {
  method: string
  /** `/v1/campaigns/{campaign_id}` */
  template: string
  pathParams: Record<string, Schema>
  query: Record<string, Schema>
  body: Schema | null
  auth: 'advertiser' | 'admin' | 'none'
}

export interface FuzzRequest {
  method: string
  path: string
  headers: Record<string, string>
  body?: string | Uint8Array<ArrayBuffer>
  operation: Operation
  /** False when the method or the path no longer names the operation (its answer is not the operation's). */
  sameOperation: boolean
  /** What was done to the valid request (empty: none). */
  mutations: string[]
}

/** Credentials and real ids the generator draws from, by parameter or field name. */
export interface FuzzContext {
  advertiserAuth: Record<string, string>
  adminAuth: Record<string, string>
  ids: Record<string, string[]>
}

export function operationsFromOpenApi(doc: any, prefix: string): Operation[] {
  const ops: Operation[] = []
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const params: any[] = op.parameters ?? []
      const of = (where: string) => Object.fromEntries(params.filter((p) => p.in === where).map((p) => [p.name, p.schema]))
      ops.push({
        method: method.toUpperCase(),
        template: prefix + path,
        pathParams: of('path'),
        query: of('query'),
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        auth: Array.isArray(op.security) && op.security.length === 0 ? 'none' : 'advertiser',
      })
    }
  }
  return ops
}

export function operationsFromCatalogue(routes: readonly RouteEntry[], prefix: string, auth: Operation['auth']): Operation[] {
  return routes
    .filter((r) => r.url.startsWith(prefix) && r.method !== 'HEAD')
    .map((r) => {
      const s = r.schema as Schema
      return {
        method: r.method,
        template: r.url.replace(/:(\w+)/g, '{$1}'),
        pathParams: s.params?.properties ?? Object.fromEntries([...r.url.matchAll(/:(\w+)/g)].map((m) => [m[1]!, { type: 'string' }])),
        query: s.querystring?.properties ?? {},
        body: s.body ?? null,
        auth,
      }
    })
}

/** A JSON value written as raw JSON text (JSON.stringify cannot write `1e309`). */
const RAW = (text: string) => `\u0000raw:${text}\u0000`
const RAW_MARK = /"\\u0000raw:([^"\\]*)\\u0000"/g

const NASTY_VALUES: unknown[] = [
  'a\u0000b', '\ud800', 'x\udfffy', '\u200b\u200b\u200b\u200b', '   ', '', 'x'.repeat(5000), 'bell\u0007', 'tab\there',
  '\u202eevil', '😀'.repeat(70), '\u0085next', "' OR 1=1 --", '../../etc/passwd', 'javascript:alert(1)', 'data:text/html,x',
  'https://a.dev/\u0000', 'https://user:pw@a.dev/', '2026-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z',
  '2026-13-01T00:00:00Z', '2026-11-01T00:00:00+24:00', 'not a date', '1e309',
  // Issue 34: text that is not text, and icons that are not images.
  `abc${'\u0301'.repeat(10_000)}`, `e${'\u0301\u200d'.repeat(8)}`, '\u{E0061}'.repeat(700), '👩🏽‍❤️‍💋‍👨🏻'.repeat(61),
  `data:image/svg+xml;base64,${btoa('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(1)</script></svg>')}`,
  'data:image/svg+xml,%3Csvg%3E%00%3C/svg%3E', 'data:image/svg+xml,%FF%FE', 'data:image/png;base64,%%%', `data:image/svg+xml,${'%3Cg%3E'.repeat(2000)}`,
  0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 2, 1e-7, 0.1234567, RAW('1e309'), RAW('-1e309'), RAW('1E400'), RAW('-0'),
  true, false, null, [], {}, ['a'], [1, 2], { a: 1 }, { __proto__x: 1 },
]

const NASTY_QUERY = [
  '%00', 'a%00b', '%ED%A0%80', '%zz', '%', '', '+', '%20', '%E2%80%8B%E2%80%8B%E2%80%8B', '%C2%85', '1e309', '-1', '1.5',
  '99999999999999999999', 'NaN', 'Infinity', '2026-06-30T23:59:60Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59Z',
  '2026-02-30T00:00:00Z', 'x'.repeat(3000), '%F0%9F%98%80', ',,,', 'a,b,c', encodeURIComponent('\u202e'),
]

const NASTY_PATH = [
  '%00', 'cmp_%00', '%ED%A0%80', '%zz', '%', 'a'.repeat(1100), '%E2%80%8B', '%20%20', '%F0%9F%98%80', '..', '%2e%2e',
  '%2F', 'cmp_0000000000000000000000', '%C2%85', '%0A', 'null', '-1', '1e309',
]

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']

export class RequestFuzzer {
  constructor(
    readonly rng: Rng,
    readonly ctx: FuzzContext,
  ) {}

  chance = (p: number) => this.rng() < p
  pick = <T>(xs: readonly T[]): T => xs[Math.floor(this.rng() * xs.length)]!
  int = (lo: number, hi: number) => lo + Math.floor(this.rng() * (hi - lo + 1))

  /** A value the schema accepts (as far as the schema can say), preferring real ids and sensible text by name. */
  valid(schema: Schema | undefined, name = ''): unknown {
    if (!schema) return 'x'
    const known = this.ctx.ids[name]
    if (known && known.length > 0 && schema.type !== 'array') return this.pick(known)
    if (schema.const !== undefined) return schema.const
    if (schema.enum) return this.pick(schema.enum)
    if (schema.anyOf) return this.valid(this.pick(schema.anyOf.filter((s: Schema) => s.type !== 'null')), name)
    switch (schema.type) {
      case 'string':
        return this.validString(schema, name)
      case 'integer':
      case 'number':
        return this.validNumber(schema, name)
      case 'boolean':
        return this.chance(0.5)
      case 'array':
        return Array.from({ length: Math.max(1, schema.minItems ?? 1) }, () => this.valid(schema.items, name))
      case 'object':
        return this.validObject(schema)
      default:
        return 'x'
    }
  }

  validString(schema: Schema, name: string): string {
    const byName: Record<string, () => string> = {
      ad_line: () => this.pick(['Ship faster with Acme CI', 'Fuzzing finds bugs early', 'Typed APIs, fewer pages']),
      destination_url: () => 'https://acme.dev/ci',
      icon_url: () => 'https://acme.dev/icon.png',
      idempotency_key: () => `fuzz-${Math.floor(this.rng() * 1e9)}`,
      card_number: () => '4242424242424242',
      viewer_id: () => `viewer-${Math.floor(this.rng() * 1e6)}`,
      memo: () => 'goodwill',
    }
    if (byName[name]) return byName[name]!()
    if (schema.format === 'date-time') return this.pick(['2026-10-26T00:00:00Z', '2026-11-01T00:00:00Z', '2026-11-02T08:00:00.500Z'])
    if (schema.format === 'email') return `fuzz-${Math.floor(this.rng() * 1e9)}@example.dev`
    if (schema.format === 'uri') return 'https://acme.dev/x'
    if (schema.pattern === '^[A-Z]{2}$') return this.pick(['US', 'DE', 'FR'])
    if (schema.pattern) return 'ABC'
    return 'fuzz'.padEnd(schema.minLength ?? 1, 'z').slice(0, schema.maxLength ?? 64)
  }

  validNumber(schema: Schema, name: string): number {
    // Moving the manual clock far would make the scheduler run years of jobs.
    if (name === 'advance_seconds') return this.int(0, 30)
    const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1)
    const hi = Math.min(schema.maximum ?? lo + 100, lo + 100_000)
    const step = schema.multipleOf ?? 1
    const n = lo + step * this.int(0, Math.floor((hi - lo) / step))
    return schema.type === 'number' && this.chance(0.3) ? n + 0.5 : n
  }

  validObject(schema: Schema): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    const required: string[] = schema.required ?? []
    for (const [key, prop] of Object.entries<Schema>(schema.properties ?? {})) {
      if (required.includes(key) || this.chance(0.3)) out[key] = this.valid(prop, key)
    }
    if (Object.keys(out).length === 0 && schema.minProperties) {
      const [key, prop] = this.pick(Object.entries<Schema>(schema.properties ?? {}))
      out[key] = this.valid(prop, key)
    }
    return out
  }

  /** One request for `op`: valid about one time in seven, else with one to three mutations. */
  request(op: Operation): FuzzRequest {
    const mutations: string[] = []
    let method = op.method
    const pathValues = Object.fromEntries(Object.entries(op.pathParams).map(([k, s]) => [k, encodeURIComponent(String(this.valid(s, k)))]))
    const query: [string, string][] = Object.entries(op.query)
      .filter(() => this.chance(0.4))
      .map(([k, s]) => [k, encodeURIComponent(String(this.valid(s, k)))])
    let body: unknown = op.body ? this.valid(op.body) : undefined
    let rawBody: string | Uint8Array<ArrayBuffer> | undefined
    const headers: Record<string, string> = {
      'x-forwarded-for': `10.${this.int(0, 255)}.${this.int(0, 255)}.${this.int(1, 254)}`,
      ...(op.auth === 'advertiser' ? this.ctx.advertiserAuth : op.auth === 'admin' ? this.ctx.adminAuth : {}),
    }
    let suffix = ''

    const count = this.chance(1 / 7) ? 0 : this.int(1, 3)
    for (let i = 0; i < count; i++) {
      const kind = this.pick(MUTATIONS)
      mutations.push(kind)
      switch (kind) {
        case 'field':
          if (body !== undefined && typeof body === 'object' && body !== null) body = this.mutateField(body)
          else query.push([this.pick(Object.keys(op.query).concat('zz')), this.pick(NASTY_QUERY)])
          break
        case 'drop_field':
          if (body && typeof body === 'object' && !Array.isArray(body)) delete (body as any)[this.pick(Object.keys(body).concat('none'))]
          break
        case 'unknown_field':
          if (body && typeof body === 'object' && !Array.isArray(body)) (body as any)[this.pick(['colour', 'CPM_USD', '__proto__', 'constructor', ''])] = 1
          break
        case 'body_shape':
          body = this.pick<unknown>([[], 'text', 42, null, true, [body]])
          break
        case 'raw_body':
          rawBody = this.pick<string | Uint8Array<ArrayBuffer>>([
            '{', '{"a":', 'not json', "{'a':1}", '{"a":1}}', '\u0000', '', '{"a":1e309}', '{"a":"\\ud800"}', '[1,2,',
            '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', 'x'.repeat(70_000),
            new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]), new Uint8Array([0xff, 0xfe, 0x00]),
          ])
          break
        case 'deep_body':
          // Nested past the edge's bound (32): 400 too_deep on every route, with a body schema or without.
          {
            // The whole body, or one field of an otherwise valid body.
            const deep = this.pick(DEEP_BODIES)
            const holder = body && typeof body === 'object' && !Array.isArray(body) && this.chance(0.5) ? body : null
            rawBody = holder ? JSON.stringify({ ...holder, [this.pick(Object.keys(holder).concat('zz'))]: DEEP_MARK }).replace(`"${DEEP_MARK}"`, () => deep) : deep
          }
          break
        case 'oversize':
          rawBody = JSON.stringify({ ...(typeof body === 'object' ? body : {}), pad: 'x'.repeat(70_000) })
          break
        case 'content_type':
          headers['content-type'] = this.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/jsonx', ''])
          if (rawBody === undefined && body === undefined) rawBody = '{}'
          break
        case 'query':
          query.push([this.pick(Object.keys(op.query).concat(['zz', 'limit', 'cursor', ''])), this.pick(NASTY_QUERY)])
          break
        case 'repeat_param':
          query.push(...[0, 1].map((): [string, string] => [this.pick(Object.keys(op.query).concat('zz')), 'a']))
          break
        case 'path':
          if (Object.keys(pathValues).length > 0) pathValues[this.pick(Object.keys(pathValues))] = this.pick(NASTY_PATH)
          else suffix = `/${this.pick(NASTY_PATH)}`
          break
        case 'method':
          method = this.pick(METHODS.filter((m) => m !== op.method))
          break
        case 'slash':
          suffix = this.pick(['/', '//', '/x', '/%00'])
          break
        case 'auth':
          for (const h of ['x-service-user-id', 'x-service-api-key', 'authorization']) delete headers[h]
          if (this.chance(0.5)) Object.assign(headers, { 'x-service-user-id': 'usr_nobody', 'x-service-api-key': 'sk_live_wrong', authorization: 'Bearer wrong' })
          break
      }
    }

    let path = op.template.replace(/\{(\w+)\}/g, (_, k: string) => pathValues[k] ?? 'x') + suffix
    if (query.length > 0) path += '?' + query.map(([k, v]) => `${k}=${v}`).join('&')
    if (rawBody === undefined && body !== undefined && method !== 'GET' && method !== 'HEAD') {
      rawBody = JSON.stringify(body).replace(RAW_MARK, '$1')
    }
    if (rawBody !== undefined && (method === 'GET' || method === 'HEAD')) rawBody = undefined
    if (rawBody !== undefined && headers['content-type'] === undefined) headers['content-type'] = 'application/json'
    if (headers['content-type'] === '') delete headers['content-type']
    // A dot segment (`..`, `%2e%2e`) is resolved by the client's URL parser: the request then names another path.
    const dotSegment = Object.values(pathValues).some((v) => /^(\.|%2e){1,2}$/i.test(v))
    const sameOperation = method === op.method && suffix === '' && !dotSegment
    return { method, path, headers, body: rawBody, operation: op, sameOperation, mutations }
  }

  /** Replaces one value somewhere in the body (top level, or inside an array or object under it). */
  mutateField(body: object): unknown {
    const copy: any = structuredClone(body)
    const keys = Object.keys(copy)
    const key = keys.length > 0 && this.chance(0.8) ? this.pick(keys) : 'zz'
    const target = copy[key]
    if (Array.isArray(target) && target.length > 0 && this.chance(0.5)) target[this.int(0, target.length - 1)] = this.pick(NASTY_VALUES)
    else copy[key] = this.pick(NASTY_VALUES)
    return copy
  }
}

const DEEP_MARK = 'deep-body-goes-here'

/** JSON nested far past the edge's bound of 32, and just past it (issue 35). */
export const DEEP_BODIES: readonly string[] = [
  '['.repeat(10_000) + ']'.repeat(10_000),
  '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
  '['.repeat(33) + ']'.repeat(33),
  '{"a":'.repeat(16) + '['.repeat(17) + '"x"' + ']'.repeat(17) + '}'.repeat(16),
]

const MUTATIONS = [
  'field', 'field', 'field', 'field', 'drop_field', 'unknown_field', 'body_shape', 'raw_body', 'deep_body', 'oversize', 'content_type',
  'query', 'query', 'repeat_param', 'path', 'path', 'method', 'slash', 'auth',
] as const
