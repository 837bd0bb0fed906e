import { Type } from 'typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { exceedsJsonDepth, findInputProblem, MAX_JSON_DEPTH } from '../../domain/input-rules.ts'
import { invalid } from '../../domain/errors.ts'
import { edgeError, hasEmptySegment } from './errors.ts'
import { canonicalPageUrl } from '../page-requests.ts'

/** The JSON APIs; HTML pages and probes are not held to their query-string rule. */
const API_ROUTE = /^\/(v1|admin\/v1|serve\/v1)\//

/** The query string of an operation that defines no parameters. */
const NoQuery = Type.Object({}, { additionalProperties: false })

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** A percent sign not followed by two hex digits, or escapes that are not UTF-8, cannot be decoded. */
function decodable(text: string): boolean {
  try {
    decodeURIComponent(text.replace(/\+/g, ' '))
    return true
  } catch {
    return false
  }
}

/**
 * The edge of every route: the body is UTF-8 JSON, the URL is one canonical,
 * decodable path, every query string is declared, and every string and number
 * in path, query and body meets the input rules (src/domain/input-rules.ts).
 * Registered on the root instance before any route, so each route inherits it.
 */
export function registerInputGuard(app: FastifyInstance): void {
  // Body-less calls (pause, resume, …) may still say `Content-Type: application/json`: an
  // empty body is no body. Bytes that are not UTF-8 are refused rather than read as U+FFFD.
  // A body nested deeper than any operation takes is refused before it is parsed: walked by the
  // schema validator or the input rules, `[[[…]]]` 10,000 deep would overflow the stack (a 500).
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string
    try {
      text = utf8.decode(typeof body === 'string' ? Buffer.from(body) : body)
    } catch {
      done(edgeError('invalid_utf8'), undefined)
      return
    }
    if (text === '') done(null, undefined)
    else if (exceedsJsonDepth(text)) done(edgeError('too_deep', { max_depth: MAX_JSON_DEPTH }), undefined)
    else void parseJson(request, text, done)
  })

  app.addHook('onRoute', (route) => {
    if (API_ROUTE.test(route.url)) route.schema = { ...route.schema, querystring: route.schema?.querystring ?? NoQuery }
  })

  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    const [path, query] = splitUrl(request.url)
    if (hasEmptySegment(path)) {
      // A browser's page request goes to the page (issue 51); API clients get the strict 404.
      const canonical = canonicalPageUrl(request.method, request.url, request.headers.accept)
      if (canonical === null) throw edgeError('not_found')
      return reply.code(308).header('location', canonical).header('cache-control', 'no-store').send()
    }
    if (query !== '' && !decodable(query)) throw edgeError('malformed_url', {}, 'query')
  })

  // After schema validation (so 403/402 and schema reasons keep their order), before any handler.
  app.addHook('preHandler', async (request: FastifyRequest) => {
    const problem = findInputProblem(request.params) ?? findInputProblem(request.query) ?? findInputProblem(request.body)
    if (problem) throw invalid(problem.field === '' ? 'body' : problem.field, problem.reason)
  })
}

function splitUrl(url: string): [path: string, query: string] {
  const at = url.indexOf('?')
  return at === -1 ? [url, ''] : [url.slice(0, at), url.slice(at + 1)]
}
