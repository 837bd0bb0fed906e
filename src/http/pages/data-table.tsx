import { cloneElement, isValidElement, toChildArray, type ComponentChildren, type FunctionComponent, type VNode } from 'preact'

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
  /**
   * Whether each row becomes a small card of labelled cells below 600 px
   * (site.css, `table.stacks`); by default a table of four columns or more
   * does, a narrower one stays a table (it fits a phone).
   */
  stack?: boolean
}

const labelOf = (c: Column) => (typeof c === 'string' ? c : c.label)

/**
 * The children as the elements they render: a function component (a row
 * component, a Fragment) is called for its output, so the cells it draws can
 * be labelled. The pages' components are pure functions of their props.
 */
function expand(children: ComponentChildren): ComponentChildren[] {
  return toChildArray(children).flatMap((child) => {
    if (!isValidElement(child) || typeof child.type !== 'function') return [child]
    const component = child.type as FunctionComponent<object>
    return expand(component(child.props))
  })
}

/**
 * Each cell of each row with `data-label`, its column's heading, and its
 * content in one `div.cell-value` (a cell spanning columns, or under an empty
 * heading, gets neither).
 */
function labelRows(rows: ComponentChildren, labels: readonly string[]): ComponentChildren[] {
  return expand(rows).map((row) => {
    if (!isValidElement(row) || row.type !== 'tr') return row
    let column = 0
    const cells = expand((row.props as { children?: ComponentChildren }).children).map((cell) => {
      if (!isValidElement(cell) || (cell.type !== 'td' && cell.type !== 'th')) return cell
      const props = cell.props as { colSpan?: number; 'data-label'?: string }
      const span = props.colSpan ?? 1
      const label = labels[column]
      column += span
      if (span !== 1 || !label || props['data-label'] !== undefined) return cell
      // The content in one box, so on a phone it sits beside its label as one column, however many lines it takes.
      const content = (cell.props as { children?: ComponentChildren }).children
      return cloneElement(cell as VNode<object>, { 'data-label': label }, <div class="cell-value">{content}</div>)
    })
    return cloneElement(row, undefined, cells)
  })
}

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')

/**
 * Every table of the pages: a box that scrolls sideways on a narrow screen,
 * its edges shaded while there is more to see, and a "scroll sideways" line
 * above it while it does (site.js). The box is a named region that takes the
 * focus, so a keyboard can scroll it (axe's scrollable-region-focusable). A
 * visible caption stands above the box, where it wraps at the screen's width
 * (a `<caption>` is as wide as its table, so scrolling would cut it); it
 * names the table. A hidden caption stays a `<caption>`; without one the
 * table is named by the region's name. A wide table's rows stack on a phone
 * instead, each cell shown under its column's heading (`data-label`), as
 * /status does.
 */
export function DataTable(props: DataTableProps) {
  const hasCaption = props.caption !== undefined
  const captionAbove = hasCaption && props.captionClass !== 'visually-hidden'
  const captionId = props.captionId ?? (captionAbove ? `${props.labelledBy ?? slug(props.label ?? 'table')}-caption` : undefined)
  const stack = props.stack ?? props.columns.length >= 4
  const labels = props.columns.map(labelOf)
  const tableClass = [props.tableClass, stack ? 'stacks' : undefined].filter(Boolean).join(' ') || undefined
  const tableName = captionAbove ? { 'aria-labelledby': captionId } : hasCaption ? {} : { 'aria-label': props.label, 'aria-labelledby': props.labelledBy }
  return (
    <>
      {captionAbove ? (
        <p class={props.captionClass === 'muted' ? 'table-caption muted' : 'table-caption'} id={captionId}>
          {props.caption}
        </p>
      ) : null}
      <div class="table-wrap" role="region" aria-label={props.label} aria-labelledby={props.labelledBy} tabIndex={0}>
        <table class={tableClass} {...tableName}>
          {hasCaption && !captionAbove ? (
            <caption class={props.captionClass} id={captionId}>
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
          <tbody>{stack ? labelRows(props.children, labels) : props.children}</tbody>
          {props.foot !== undefined ? <tfoot>{stack ? labelRows(props.foot, labels) : props.foot}</tfoot> : null}
        </table>
      </div>
    </>
  )
}
