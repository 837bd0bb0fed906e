import { Page } from '../layout.tsx'
import { count } from '../format.ts'
import { DataTable } from '../data-table.tsx'

export interface TreeHeadView {
  date: string
  treeSize: number
  rootHash: string
  closedAt: Date
}

/**
 * `/transparency` (pure rendering): the published head of every closed day's ledger tree, newest first.
 * No account data: a head is a date, a count of leaves and one hash.
 */
/** A Privacy Pass issuer key as published (services/attestation.ts#publishedIssuer). */
export interface IssuerKeyView {
  token_key_id: string
  not_before: string
  issue_until: string
  redeem_until: string
}

/** The command for this month's closed days (through the last closed one), or with placeholders before any day is closed. */
export function verifyCommand(closedThrough: string | null): string {
  return closedThrough === null
    ? 'adctl ledger verify --from YYYY-MM-DD --to YYYY-MM-DD'
    : `adctl ledger verify --from ${closedThrough.slice(0, 8)}01 --to ${closedThrough}`
}

export function TransparencyPage(props: { heads: TreeHeadView[]; shown: number; closedThrough: string | null; issuerKeys: IssuerKeyView[] }) {
  return (
    <Page title="Transparency log" heading="Ledger transparency log" area="public" path="/transparency" stylesheets={['/assets/public.css']}>
      <section aria-labelledby="check-h" class="card">
        <h2 id="check-h">Check what you were billed for</h2>
        <p>
          As an advertiser you can prove, without trusting us, that the impressions and clicks you were billed for are the ones recorded, and that
          no closed day was changed afterwards. One command does it, with your API credentials:
        </p>
        <pre class="command">
          <code>{verifyCommand(props.closedThrough)}</code>
        </pre>
        <p>
          It downloads your ledger for those days, recomputes each day's fingerprint, checks it against the heads published on this page and
          against what your invoices took, and names the first day and row that disagree (exit code 4). The same check is{' '}
          <code>client.ledger.verify</code> in the SDK.
        </p>
      </section>
      <h2>How it works</h2>
      <p>
        Every UTC day, shortly after midnight, the service closes the previous day's ledger. Each advertiser account with ledger rows that
        day gets a day root: a SHA-256 chain over all its rows, in the order and bytes of its ledger export, continuing from its previous
        root. The day's account roots are the leaves of a Merkle tree (RFC 6962), and the tree's head is published here.
      </p>
      <p>
        The command checks that your root is in the published tree with the inclusion proof of{' '}
        <code>GET /v1/ledger/days/&#123;date&#125;/proof</code>, and that the root matches your exported rows. Rewriting a closed day changes its
        roots, so the head published here would no longer match. The byte formats are documented for anyone who wants to write their own verifier.
      </p>
      <p>
        {props.closedThrough === null ? (
          'No day is closed yet.'
        ) : (
          <>
            Closed through <time dateTime={props.closedThrough}>{props.closedThrough}</time> (UTC). A closed day with no ledger rows has no tree and is
            not listed.
          </>
        )}
      </p>
      {props.heads.length === 0 ? (
        <p>No closed day has ledger rows yet.</p>
      ) : (
        <DataTable
          label="Published tree heads"
          tableClass="tree-heads"
          columns={['Day (UTC)', { label: 'Accounts (leaves)', num: true }, 'Root hash (SHA-256)']}
          captionClass="visually-hidden"
          caption={<>Tree heads of {props.heads.length === 1 ? 'the last closed day' : `the last ${count(props.heads.length)} closed days`}, newest first</>}
        >
          {props.heads.map((h) => (
            <tr>
              <td>
                <time dateTime={h.date}>{h.date}</time>
              </td>
              <td class="num">{count(h.treeSize)}</td>
              <td>
                <code class="hash">{h.rootHash}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2>Attestation keys</h2>
      <p>
        A view billed as <em>attested</em> carried a Privacy Pass token that this service issued, blind, to a signed-in user of a coding
        tool. A ledger-export-v4 file lists each attested impression's token; <code>adctl ledger verify --tokens FILE</code> checks every one
        against these keys (the full keys and the challenge are in the JSON below) and that no token was used twice.
      </p>
      {props.issuerKeys.length === 0 ? (
        <p>No attestation key has been used yet.</p>
      ) : (
        <DataTable
          label="Attestation keys"
          tableClass="issuer-keys"
          columns={['Key id (SHA-256)', 'Issues from (UTC)', 'Issues until', 'Redeems until']}
          captionClass="visually-hidden"
          caption="Every Privacy Pass issuer key used, newest first"
        >
          {props.issuerKeys.map((k) => (
            <tr>
              <td>
                <code class="hash">{k.token_key_id}</code>
              </td>
              <td>
                <time dateTime={k.not_before}>{k.not_before.slice(0, 10)}</time>
              </td>
              <td>
                <time dateTime={k.issue_until}>{k.issue_until.slice(0, 10)}</time>
              </td>
              <td>
                <time dateTime={k.redeem_until}>{k.redeem_until.slice(0, 10)}</time>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <p class="muted">
        At most {props.shown === 1 ? 'the last closed day' : `the last ${count(props.shown)} closed days`} with rows. The same heads as JSON:{' '}
        <a href="/transparency.json">
          <code>/transparency.json</code>
        </a>{' '}
        (<code>?from=YYYY-MM-DD&amp;to=YYYY-MM-DD</code> for a range).
      </p>
    </Page>
  )
}
