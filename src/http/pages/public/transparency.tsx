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

export function TransparencyPage(props: { heads: TreeHeadView[]; shown: number; closedThrough: string | null; issuerKeys: IssuerKeyView[] }) {
  return (
    <Page title="Transparency log" heading="Ledger transparency log" area="public" path="/transparency" stylesheets={['/assets/public.css']}>
      <p>
        Every UTC day, shortly after midnight, the service closes the previous day's ledger. Each advertiser account with ledger rows that
        day gets a day root: a SHA-256 chain over all its rows, in the order and bytes of its ledger export, continuing from its previous
        root. The day's account roots are the leaves of a Merkle tree (RFC 6962), and the tree's head is published here.
      </p>
      <p>
        An advertiser checks that its root is in the published tree with the inclusion proof of <code>GET /v1/ledger/days/&#123;date&#125;/proof</code>,
        and that the root matches its exported rows. Rewriting a closed day changes its roots, so the head published here would no longer
        match. The byte formats are documented for anyone who wants to write their own verifier.
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
          caption={<>Tree heads of the last {count(props.heads.length)} closed days, newest first</>}
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
        At most the last {count(props.shown)} closed days with rows. The same heads as JSON:{' '}
        <a href="/transparency.json">
          <code>/transparency.json</code>
        </a>{' '}
        (<code>?from=YYYY-MM-DD&amp;to=YYYY-MM-DD</code> for a range).
      </p>
    </Page>
  )
}
