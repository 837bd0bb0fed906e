import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

interface OpenApiDoc {
  openapi: string
  paths: Record<
    string,
    Record<string, { requestBody?: { content?: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>
  >
}

/** Where each served document lives and the path prefix its operations are relative to (its server URL). */
export const OPENAPI_DOCUMENTS = {
  advertiser: { url: '/v1/openapi.json', prefix: '/v1' },
  operator: { url: '/admin/v1/openapi.json', prefix: '/admin/v1' },
} as const

/**
 * Validates real responses against a served OpenAPI document (the advertiser
 * API's, or the operator API's behind its token): the status
 * must be documented for the operation and the body must match its schema.
 */
export class OpenApiValidator {
  readonly doc: OpenApiDoc
  readonly #ajv: Ajv2020
  readonly #templates: { template: string; regex: RegExp }[]
  readonly #cache = new Map<string, ReturnType<Ajv2020['compile']>>()

  constructor(doc: OpenApiDoc) {
    this.doc = doc
    this.#ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }))
    this.#ajv.addSchema(doc as object, 'openapi.json')
    this.#templates = Object.keys(doc.paths).map((template) => ({
      template,
      regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
  }

  /** Problems of a JSON request body against the operation's `requestBody` schema (empty when it conforms). */
  checkRequest(method: string, path: string, body: unknown): string[] {
    const bare = path.split('?')[0]!
    const match = this.#templates.find((t) => t.regex.test(bare))
    if (!match) return [`${method} ${bare}: path not in the OpenAPI document`]
    const operation = this.doc.paths[match.template]![method.toLowerCase()]
    if (!operation?.requestBody?.content?.['application/json']) return [`${method} ${match.template}: no JSON request body documented`]
    const pointer = `openapi.json#/paths/${match.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/requestBody/content/application~1json/schema`
    let validate = this.#cache.get(pointer)
    if (!validate) {
      validate = this.#ajv.compile({ $ref: pointer })
      this.#cache.set(pointer, validate)
    }
    if (validate(body)) return []
    return (validate.errors ?? []).map((e) => `${method} ${match.template} request: ${e.instancePath || '/'} ${e.message}`)
  }

  /** Returns a list of problems (empty when the response conforms). */
  check(method: string, path: string, status: number, body: unknown): string[] {
    const bare = path.split('?')[0]!
    const match = this.#templates.find((t) => t.regex.test(bare))
    if (!match) return [`${method} ${bare}: path not in the OpenAPI document`]
    const operation = this.doc.paths[match.template]![method.toLowerCase()]
    if (!operation) return [`${method} ${match.template}: method not in the OpenAPI document`]
    const response = operation.responses[String(status)]
    if (!response) return [`${method} ${match.template}: status ${status} not documented`]
    const schema = response.content?.['application/json']?.schema
    if (schema === undefined) return body === undefined || body === '' ? [] : [`${method} ${match.template} ${status}: undocumented body`]
    const pointer = `openapi.json#/paths/${match.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`
    let validate = this.#cache.get(pointer)
    if (!validate) {
      validate = this.#ajv.compile({ $ref: pointer })
      this.#cache.set(pointer, validate)
    }
    if (validate(body)) return []
    return (validate.errors ?? []).map((e) => `${method} ${match.template} ${status}: ${e.instancePath || '/'} ${e.message}`)
  }
}

/**
 * One validator per distinct document in a process: the test files that share a process
 * (scripts/test.ts) are served the same documents, and each schema is compiled once.
 */
const validators = new Map<string, OpenApiValidator>()
function validatorOf(text: string): OpenApiValidator {
  let validator = validators.get(text)
  if (!validator) {
    validator = new OpenApiValidator(JSON.parse(text) as OpenApiDoc)
    validators.set(text, validator)
  }
  return validator
}

/** The advertiser API's document, as served, as a validator. */
export async function advertiserValidator(baseUrl: string): Promise<OpenApiValidator> {
  const res = await fetch(baseUrl + OPENAPI_DOCUMENTS.advertiser.url)
  if (res.status !== 200) throw new Error(`GET ${OPENAPI_DOCUMENTS.advertiser.url}: ${res.status} ${await res.text()}`)
  return validatorOf(await res.text())
}

/** The operator API's document, fetched with the token, as a validator. */
export async function operatorValidator(baseUrl: string, token: string): Promise<OpenApiValidator> {
  const res = await fetch(baseUrl + OPENAPI_DOCUMENTS.operator.url, { headers: { authorization: `Bearer ${token}` } })
  if (res.status !== 200) throw new Error(`GET ${OPENAPI_DOCUMENTS.operator.url}: ${res.status} ${await res.text()}`)
  return validatorOf(await res.text())
}
