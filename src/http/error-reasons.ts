import { MAX_JSON_DEPTH } from '../domain/input-rules.ts'

/**
 * Reasons of the answers the HTTP edge gives on its own (routing, body
 * parsing, the input rules), before any endpoint runs. One list, so the
 * mapper in plugins/errors.ts and the OpenAPI description cannot drift.
 * Each is `{detail: {field, reason, ...facts}}`; `field` names the part of
 * the request at fault (`path`, `query`, `method`, `body`, a header, or the
 * field itself).
 */
export const EDGE_REASONS = {
  not_found: { status: 404, field: 'path', meaning: 'No such route (also any path with an empty segment, such as a trailing slash).' },
  method_not_allowed: { status: 405, field: 'method', meaning: 'The path exists, not with this method; `Allow` and `allowed` list the methods.' },
  malformed_url: { status: 400, field: 'path', meaning: 'Invalid percent-encoding in the path or (field `query`) the query string.' },
  uri_too_long: { status: 414, field: 'path', meaning: 'A path segment is longer than 1,024 characters.' },
  unknown_parameter: { status: 400, field: 'query', meaning: 'A query parameter the operation does not define (every operation refuses them).' },
  invalid_json: { status: 400, field: 'body', meaning: 'The body is not JSON.' },
  too_deep: { status: 400, field: 'body', meaning: `The JSON body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep (\`max_depth\`); no operation takes a body deeper than 2.` },
  invalid_utf8: { status: 400, field: 'body', meaning: 'The body is not valid UTF-8.' },
  invalid_content_length: { status: 400, field: 'content-length', meaning: 'The body length differs from `Content-Length`.' },
  payload_too_large: { status: 413, field: 'body', meaning: 'The body is over 64 KiB (`limit_bytes`).' },
  unsupported_media_type: { status: 415, field: 'content-type', meaning: 'A body that is not `application/json`.' },
  header_too_large: { status: 431, field: 'headers', meaning: 'The request head is over 16 KiB.' },
  malformed_request: { status: 400, field: 'request', meaning: 'Not a valid HTTP/1.1 request (answered by the connection, which then closes).' },
  bad_request: { status: 400, field: 'request', meaning: 'Any other request the HTTP layer refuses (a 4xx with no reason of its own).' },
  request_timeout: { status: 408, field: 'request', meaning: 'The request was not received in time.' },
  control_characters: { status: 400, field: null, meaning: 'Text holding a C0/C1 control character (NUL, newline, tab…); no field allows them.' },
  invalid_unicode: { status: 400, field: null, meaning: 'Text holding a lone surrogate (`\\ud800`), which is not Unicode text.' },
  blank: { status: 400, field: null, meaning: 'Text made only of whitespace and zero-width characters.' },
  not_finite: { status: 400, field: null, meaning: 'A number too large to represent (`1e309`).' },
  out_of_range: { status: 400, field: null, meaning: 'A number beyond ±2^53, which cannot be exact.' },
} as const

export type EdgeReason = keyof typeof EDGE_REASONS

/** The detail of an edge answer: `{field, reason, ...facts}`, the field defaulting to the catalogue's. */
export function edgeDetail(reason: EdgeReason, facts: Record<string, unknown> = {}, field?: string) {
  return { field: field ?? EDGE_REASONS[reason].field ?? 'body', reason, ...facts }
}

/** The catalogue as a Markdown table, for the OpenAPI description. */
export function edgeReasonsTable(): string {
  const rows = Object.entries(EDGE_REASONS).map(([reason, r]) => `| \`${reason}\` | ${r.status} | ${r.field === null ? 'the offending input' : `\`${r.field}\``} | ${r.meaning} |`)
  return ['| reason | status | field | meaning |', '|---|---|---|---|', ...rows].join('\n')
}
