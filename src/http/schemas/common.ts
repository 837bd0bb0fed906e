import { Type, type TEnum, type TSchema, type TSchemaOptions } from 'typebox'
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../domain/pagination.ts'
import { MAX_COMBINING_MARKS, textCaps } from '../../domain/text-rules.ts'

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

/**
 * One of `values` (a domain's `as const` list where there is one): the static type is their literal union, the
 * JSON Schema `{type: 'string', enum}`, so any other string is `invalid_value` and a non-string `invalid_type`.
 */
export const StringEnum = <const V extends string[]>(values: readonly [...V], options?: TSchemaOptions): TEnum<V> =>
  Type.Enum(values, { ...options, type: 'string' })

/**
 * What every display-text field (ad line, brand, name, a moderation reason) holds besides its
 * characters (domain/text-rules.ts), as its description states it.
 */
export function displayTextNote(max: number): string {
  const caps = textCaps(max)
  return (
    `At most ${caps.max_code_points.toLocaleString('en-US')} code points and ${caps.max_bytes.toLocaleString('en-US')} bytes of UTF-8 ` +
    `(${max} of the longest emoji sequences fit; more is 400 \`too_long\` with \`max_length\`, \`max_code_points\`, \`max_bytes\`) ` +
    `and at most ${MAX_COMBINING_MARKS} combining marks on one character (400 \`too_many_combining_marks\` with \`max_combining_marks\`). ` +
    'Plain text, stored and served exactly as written: markup such as `<script>` is text, which every client escapes.'
  )
}

/**
 * The display-text note of a field a viewer is shown (ad line, brand): no invisible characters
 * besides (domain/text-rules.ts#findInvisibleCharacter, domain/campaign-order.ts).
 */
export function shownTextNote(max: number): string {
  return (
    `${displayTextNote(max)} No invisible characters: tag characters (U+E0000–E007F), zero-width space (U+200B), ` +
    'direction marks (U+200E, U+200F, U+061C), word joiner and invisible operators (U+2060–2064), U+206A–206F and the BOM ' +
    '(U+FEFF) are 400 `invisible_characters` with `found` (the first, as `U+XXXX`); a zero-width joiner (U+200D) only inside ' +
    'an emoji sequence (👩‍💻), tags only in the flags of England, Scotland and Wales.'
  )
}

/** The icon rule (domain/icon-url.ts, domain/svg-icon.ts), as the icon_url fields describe it. */
export const ICON_URL_NOTE =
  'An https URL, or a data URI of a PNG, JPEG, GIF, WebP or SVG image: `data:image/<type>[;charset=utf-8][;base64],<data>`, ' +
  'percent-encoded (no white space and no raw `#`; else 400 `invalid_icon_url`). At most 12,000 characters and 16,384 bytes of UTF-8 ' +
  '(400 `too_long` with `max_length`, `max_bytes`). The data is decoded and checked: a raster image must be what its type says ' +
  '(`invalid_icon_url`); an SVG is held to the character rules of ad text (`invalid_unicode`, `control_characters`, ' +
  '`too_many_combining_marks`) and may hold only static shapes, gradients, clips, masks and text with presentation attributes: ' +
  'anything else (`<script>`, `<foreignObject>`, `<style>`, `<image>`, `<use>`, `on*` attributes, `javascript:`, any `href` or ' +
  '`url(…)` other than a same-document `#fragment`, a DOCTYPE) is 400 `unsafe_svg` with `found` naming it.'

export const DateTime = Type.String({ format: 'date-time', description: 'RFC 3339 timestamp, UTC, from the service clock.' })

export const ErrorBody = Type.Object(
  {
    detail: Type.Union([
      Type.String(),
      Type.Object(
        {
          field: Type.String({
            description:
              'The offending input: a body field (`target_countries.0`), query or path parameter, header, or a part of the ' +
              'request (`path`, `query`, `method`, `body`, `content-type`, `headers`, `request`).',
          }),
          reason: Type.String({ description: 'Stable machine-readable reason code (listed in the API description).' }),
        },
        { additionalProperties: true, description: 'Names the input; some reasons carry extra facts (e.g. `minimum`).' },
      ),
    ]),
  },
  {
    $id: 'Error',
    description:
      'Every non-2xx response carries `detail`: an object naming the input for anything the request got wrong (including ' +
      'unknown routes, 405, 413, 415 and 431), a string for 401, state answers and 5xx.',
  },
)

export const ErrorRef = Type.Ref('Error')

/** Standard error responses, by status, for route schemas. */
export function errors(...statuses: number[]): Record<number, typeof ErrorRef> {
  return Object.fromEntries(statuses.map((s) => [s, ErrorRef]))
}

// No length bound: an id of any length that is not the account's is simply unknown (404).
const Id = Type.String({ minLength: 1 })
// The cast: TypeScript types a computed key of generic type `K` as any string.
export const IdParams = <K extends string>(name: K) => Type.Object({ [name]: Id } as Record<K, typeof Id>)

/** Query string of the paged lists (GET /campaigns, GET /exports); any other parameter is 400 `unknown_parameter`. */
export const PageQuerySchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: PAGE_LIMIT_MAX,
        default: PAGE_LIMIT_DEFAULT,
        description: `Items per page, 1-${PAGE_LIMIT_MAX}; ${PAGE_LIMIT_DEFAULT} when omitted.`,
      }),
    ),
    cursor: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description:
          'Opaque: the `next_cursor` of the previous page, sent back unchanged. A malformed cursor is 400 ' +
          '`{field: "cursor", reason: "malformed_cursor"}`; one from another list is 400 `foreign_cursor`.',
      }),
    ),
  },
  { additionalProperties: false },
)

/**
 * The schema of a paged list (GET /campaigns, GET /exports): `items` names what it lists and in which order, `notes`
 * what else holds for that list; the paging rule between them is the same for every list.
 */
export function pagedListSchema<L extends TSchema>(doc: { summary: string; items: string; notes: string; tags: string[]; list: L }) {
  return {
    summary: doc.summary,
    description:
      `${doc.items}, one page at a time: \`limit\` per page (default ${PAGE_LIMIT_DEFAULT}, at most ${PAGE_LIMIT_MAX}); ` +
      `follow \`next_cursor\` (null on the last page) as \`cursor\`. ${doc.notes} Unknown query parameters are 400 \`unknown_parameter\`.`,
    tags: doc.tags,
    querystring: PageQuerySchema,
    response: { 200: doc.list, ...errors(400, 401, 429) },
  }
}

export const NextCursor = Nullable(
  Type.String({ description: 'Pass as `cursor` to read the next page; null on the last page. Items created meanwhile appear on no later page (newest first).' }),
)
