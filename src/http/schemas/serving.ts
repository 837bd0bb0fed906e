import { Type } from 'typebox'
import { SURFACES } from '../../domain/auction.ts'
import { MAX_TOPIC_NAME_LENGTH, TOPIC_GROUPS, TOPIC_NAME_PATTERN } from '../../domain/topics.ts'
import { StringEnum } from './common.ts'

// The serving endpoints (routes/serve.ts), called by the editor extension and the terminal status line.

export const DecisionBody = Type.Object(
  {
    surface: StringEnum(SURFACES),
    viewer_id: Type.String({ minLength: 1, maxLength: 128 }),
    country: Type.Optional(Type.String({ pattern: '^[A-Z]{2}$' })),
    topics: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: MAX_TOPIC_NAME_LENGTH }), {
        maxItems: 50,
        description:
          'Coarse topics of the project open in the tool, from GET /serve/v1/topics, derived on the device. Names not in the vocabulary ' +
          'are dropped (never an error); of the rest, repeats are dropped and the first 5 in the order sent count.',
      }),
    ),
  },
  { additionalProperties: false },
)
/** Plain text, never markup: what clients must do with the ad's text fields. */
const PLAIN_TEXT =
  'Plain text exactly as the advertiser wrote it (Unicode, no control characters), never markup: `<script>` is legal ad text, ' +
  'so a client that renders into HTML, a terminal or any other markup must escape it.'
export const DecisionSchema = Type.Object({
  impression_id: Type.String(),
  ad_line: Type.String({ description: `The ad line. ${PLAIN_TEXT}` }),
  brand: Type.Union([Type.String(), Type.Null()], { description: `The advertiser's brand, at most 120 characters, or null. ${PLAIN_TEXT}` }),
  icon_url: Type.Union([Type.String(), Type.Null()], {
    description: 'An https URL, or a data:image URI checked when stored (an SVG holds no script, event handler or external reference); a URL, never markup to inline.',
  }),
  view_url: Type.String(),
  click_url: Type.String(),
})
export const ViewBody = Type.Object({ dwell_ms: Type.Integer({ minimum: 0, maximum: 86_400_000 }) }, { additionalProperties: false })
export const ImpressionParams = Type.Object({ impression_id: Type.String({ minLength: 1 }) })

export const TopicSchema = Type.Object({
  topic: Type.String({ pattern: TOPIC_NAME_PATTERN, description: 'The name a decision carries and a campaign targets.' }),
  label: Type.String({ description: 'How a person reads it.' }),
  group: StringEnum(TOPIC_GROUPS.map((g) => g.group), { description: 'The group the portal lists it under.' }),
})
export const TopicsSchema = Type.Object({ topics: Type.Array(TopicSchema) })
