import type { ComponentChildren } from 'preact'

/** A column heading; `num` right-aligns a column of figures (its cells carry the class `num` too). */
export type Column = string | { label: string; num: true }

/** The region's (and, without a caption, the table's) accessible name: its own text, or a heading's id. */
type Name = { label: string; labelledBy?: never } | { labelledBy: string; label?: never }

export type DataTableProps = Name & {
  columns: readonly Column[]
  caption?: ComponentChildren
  captionClass?: 'muted' | 'visually-hidden'
  captionId?: string
  tableClass?: string
  /** The body's rows. */
  children: ComponentChildren
  foot?: ComponentChildren
}

/**
 * Every table of the pages: a box that scrolls sideways on a narrow screen.
 * The box is a named region that takes the focus, so a keyboard can scroll it
 * (axe's scrollable-region-focusable); the table is named by its caption, else
 * by the region's name.
 */
export function DataTable(props: DataTableProps) {
  const hasCaption = props.caption !== undefined
  return (
    <div class="table-wrap" role="region" aria-label={props.label} aria-labelledby={props.labelledBy} tabIndex={0}>
      <table class={props.tableClass} aria-label={hasCaption ? undefined : props.label} aria-labelledby={hasCaption ? undefined : props.labelledBy}>
        {hasCaption ? (
          <caption class={props.captionClass} id={props.captionId}>
            {props.caption}
          </caption>
        ) : null}
        <thead>
          <tr>
            {props.columns.map((c) =>
              typeof c === 'string' ? (
                <th scope="col">{c}</th>
              ) : (
                <th scope="col" class="num">
                  {c.label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
        {props.foot !== undefined ? <tfoot>{props.foot}</tfoot> : null}
      </table>
    </div>
  )
}
