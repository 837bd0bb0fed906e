/**
 * A link to hand on (a public report, a preview): shown whole, in a box that
 * breaks only where the address has a slash (so a UUID or token is never cut
 * in two on a desktop, and reads on a phone), selectable without JavaScript
 * (a tap selects all of it), and with a "Copy link" button that site.js shows
 * and answers in a polite live region ("Copied").
 */
export function CopyLink(props: { id: string; label: string; url: string }) {
  // Break opportunities after each slash of the path, none inside a segment.
  const cut = props.url.indexOf('/', props.url.indexOf('//') + 2)
  const origin = cut < 0 ? props.url : props.url.slice(0, cut)
  const segments = cut < 0 ? [] : props.url.slice(cut + 1).split('/')
  return (
    <div class="copy-link">
      <p class="label">{props.label}</p>
      <div class="copy-row">
        <code id={props.id} class="copy-text">
          <span class="seg">{origin}/</span>
          {segments.map((s, i) => (
            <>
              <wbr />
              <span class="seg">{i < segments.length - 1 ? `${s}/` : s}</span>
            </>
          ))}
        </code>
        <button type="button" class="secondary" data-copy-link={props.id} hidden>
          Copy link
        </button>
      </div>
      <p class="copy-status" role="status" id={`${props.id}-status`}></p>
    </div>
  )
}
