import { Field, PostForm } from '../forms.tsx'
import { SelectField } from '../choice-fields.tsx'
import { DataTable } from '../data-table.tsx'
import { utc } from '../format.ts'
import type { FieldErrors } from './messages.ts'

/**
 * The block list section of the traffic page (traffic.tsx lays it out): the sources and viewers
 * whose views and clicks never bill, each with "Remove", and the form that adds one.
 */

/** An entry of the block list as the page shows it: who added it in words. */
export interface BlockShown {
  block_id: string
  kind: 'cidr' | 'viewer'
  value: string
  note: string
  created_at: string
  by: string
}

const KIND_WORDS = { cidr: 'Address range', viewer: 'Viewer key' } as const

/** The block list, each entry with "Remove", and the form that adds one. */
export function BlockList(props: { csrf: string; day: string; blocks: BlockShown[]; errors: FieldErrors; values: Partial<Record<string, string>> }) {
  const { csrf, day, errors, values } = props
  return (
    <>
      <h2 id="blocks-h">Block list</h2>
      <p class="muted">Views and clicks from these ranges, or of these viewers, never bill (reason invalid_traffic); decisions are still answered.</p>
      {props.blocks.length === 0 ? (
        <p>Nothing is blocked.</p>
      ) : (
        <DataTable labelledBy="blocks-h" columns={['Kind', 'Value', 'Note', 'Added', 'Action']}>
          {props.blocks.map((b) => (
            <tr>
              <td>{KIND_WORDS[b.kind]}</td>
              <td class="ident">
                <code>{b.value}</code>
              </td>
              <td class="wrap">{b.note === '' ? '—' : b.note}</td>
              <td>
                {utc(b.created_at)} by {b.by}
              </td>
              <td>
                <PostForm action={`/ops/traffic/blocks/${b.block_id}/remove`} csrf={csrf} label={`Remove the block of ${b.value}`}>
                  <input type="hidden" name="day" value={day} />
                  <button type="submit" class="secondary">
                    Remove
                  </button>
                </PostForm>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <div class="card narrow">
        <h3 id="add-block-h">Add a block</h3>
        <PostForm action="/ops/traffic/blocks" csrf={csrf} label="Add a block">
          <input type="hidden" name="day" value={day} />
          <SelectField
            name="kind"
            label="Kind"
            value={values.kind ?? 'cidr'}
            choices={[
              { value: 'cidr', label: 'Address range (CIDR)' },
              { value: 'viewer', label: 'Viewer key' },
            ]}
            error={errors.kind}
          />
          <Field
            type="text"
            name="value"
            label="Value"
            required
            autocomplete="off"
            spellcheck={false}
            value={values.value ?? ''}
            hint="A range like 203.0.113.0/24 or 2001:db8::/48 (IPv6 at most /64), a bare address, or a viewer key from the tables above."
            error={errors.value}
          />
          <Field type="text" name="note" label="Note" value={values.note ?? ''} hint="Why it is blocked (optional)." error={errors.note} />
          <button type="submit">Add block</button>
        </PostForm>
      </div>
    </>
  )
}
