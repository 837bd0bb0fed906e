import { MAX_TARGET_TOPICS, TOPIC_GROUPS, TOPICS, topicOf } from '../../../domain/topics.ts'

/** The form field of one topic's checkbox (a form posts the first value of each name, so each box has its own). */
export const topicField = (topic: string) => `topic_${topic}`

/** The topics ticked in a posted create form (`topic_<name>` fields with a value), in the order posted. */
export function tickedTopics(values: object): string[] {
  return Object.entries(values)
    .filter(([name, value]) => name.startsWith('topic_') && typeof value === 'string' && value !== '')
    .map(([name]) => name.slice('topic_'.length))
}

/**
 * The create form's topic picker (issue 40): one checkbox per topic of the published vocabulary
 * (domain/topics.ts), named `topic_<name>` (`topicField`), in one folded group per topic group; a group holding
 * a chosen topic starts open. It works without JavaScript; assets/site.js (the "topics picker"
 * block) adds a filter box, keeps the "n of 10 chosen" count and says beside the field when more
 * than ten are ticked. The service refuses more than ten, or an unknown name, beside the field too.
 */
export function TopicPicker(props: { selected: readonly string[]; error?: string | undefined; label: string }) {
  const selected = new Set(props.selected)
  const id = 'f-target_topics'
  const describedBy = [`${id}-hint`, `${id}-count`, props.error ? `${id}-error` : null].filter(Boolean).join(' ')
  return (
    <fieldset
      id={id}
      tabIndex={-1}
      class={props.error ? 'field topic-picker has-error' : 'field topic-picker'}
      aria-describedby={describedBy}
      data-topic-picker={String(MAX_TARGET_TOPICS)}
    >
      <legend>{props.label}</legend>
      <p class="hint" id={`${id}-hint`}>
        Optional. Up to {MAX_TARGET_TOPICS} topics of the project a developer has open (read by their tool from its manifest files, on their machine; we never
        learn who they are). With topics, the campaign serves only where one of them is seen; without, everywhere. Your bid ranks as usual.
      </p>
      <p class="field-error" id={`${id}-error`} hidden={!props.error} data-topic-error>
        {props.error ?? ''}
      </p>
      <div class="topic-filter" hidden data-topic-filter>
        <label for="f-topic-filter">Find a topic</label>
        <input type="search" id="f-topic-filter" autocomplete="off" spellcheck={false} aria-controls={`${id}-groups`} />
      </div>
      <p class="hint" id={`${id}-count`} aria-live="polite" data-topic-count>
        {selected.size} of {MAX_TARGET_TOPICS} chosen
      </p>
      <div id={`${id}-groups`}>
        {TOPIC_GROUPS.map((g) => {
          const topics = TOPICS.filter((t) => t.group === g.group)
          const chosen = topics.filter((t) => selected.has(t.topic)).length
          return (
            <details class="topic-group" open={chosen > 0} data-topic-group>
              <summary>
                {g.label}{' '}
                <span class="muted" data-topic-summary={String(topics.length)}>
                  ({chosen > 0 ? `${chosen} of ${topics.length} chosen` : `${topics.length}`})
                </span>
              </summary>
              <ul class="topic-list">
                {topics.map((t) => (
                  <li data-topic={`${t.topic} ${t.label.toLowerCase()}`}>
                    <input type="checkbox" name={topicField(t.topic)} value="on" data-topic-name={t.topic} id={`topic-${t.topic}`} checked={selected.has(t.topic)} />
                    <label for={`topic-${t.topic}`}>{t.label}</label>
                  </li>
                ))}
              </ul>
            </details>
          )
        })}
      </div>
    </fieldset>
  )
}

/** A campaign's topics as its page lists them: each label, and whether it still matches (a topic removed from the vocabulary does not). */
export function TopicsFact(props: { topics: readonly string[] | null }) {
  if (props.topics === null || props.topics.length === 0) return <>Every project (no topics)</>
  const retired = props.topics.filter((t) => topicOf(t) === undefined)
  return (
    <>
      {props.topics.map((t, i) => (
        <>
          {i > 0 ? ', ' : null}
          {topicOf(t)?.label ?? t}
          {topicOf(t) === undefined ? ' (no longer in the topic list)' : null}
        </>
      ))}
      {retired.length > 0 ? (
        <p class="hint">
          {retired.length === 1 ? 'A topic marked "no longer in the topic list" was' : 'Topics marked "no longer in the topic list" were'} removed from the
          published vocabulary: {retired.length === 1 ? 'it matches' : 'they match'} no decision now. The campaign still serves for its other topics.
        </p>
      ) : null}
    </>
  )
}
