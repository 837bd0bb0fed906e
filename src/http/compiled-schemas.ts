import { createRequire } from 'node:module'

/**
 * Response serializers compiled once per process, not once per route, status and
 * app (the validators likewise: validation.ts#routeValidators). Many responses are
 * the same schema object (every route's error statuses are `ErrorRef`), and a
 * process that builds several apps (tests start one or more services per file)
 * would compile them all again. Each serializer is kept against the schema object
 * it was made from, so the route schemas stay the one source; it is the function
 * Fastify's default compiler makes, with the same shared schemas and options, and
 * holds no state between calls.
 */

type Serializer = (data: unknown) => string
type SerializerCompiler = (route: { schema?: unknown; method: string; url: string; httpStatus?: string; contentType?: string }) => Serializer
type SerializerFactory = (externalSchemas: unknown, serializerOpts: unknown) => SerializerCompiler

// Fastify's own default (fast-json-stringify through @fastify/fast-json-stringify-compiler), resolved from Fastify.
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'))
const { SerializerSelector } = fastifyRequire('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerFactory }
const defaultFactory = SerializerSelector()

/** Compiled serializers by schema object, then by the shared schemas and options they were compiled with. */
const serializers = new WeakMap<object, Map<string, Serializer>>()

/** Fastify's `schemaController.compilersFactory.buildSerializer`: the default compiler, remembered. */
export const buildSerializer: SerializerFactory = (externalSchemas, serializerOpts) => {
  const compile = defaultFactory(externalSchemas, serializerOpts)
  const key = JSON.stringify([externalSchemas, serializerOpts ?? null])
  return (route) => {
    const schema = route.schema
    if (typeof schema !== 'object' || schema === null) return compile(route)
    let byKey = serializers.get(schema)
    if (!byKey) serializers.set(schema, (byKey = new Map<string, Serializer>()))
    let serialize = byKey.get(key)
    if (!serialize) byKey.set(key, (serialize = compile(route)))
    return serialize
  }
}
