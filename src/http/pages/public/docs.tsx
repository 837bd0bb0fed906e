import { Page } from '../layout.tsx'
import { DataTable } from '../data-table.tsx'

export interface DocsOperation {
  method: string
  path: string
  summary: string
}

export interface DocsView {
  title: string
  version: string
  operations: DocsOperation[]
}

/** Where the API reference's files are served (routes/public/docs.ts), from the swagger-ui-dist package and this folder. */
export const DOCS_ASSETS = '/docs/assets'

/**
 * `/docs`: the served OpenAPI description for people. Swagger UI (served
 * from this origin, started by docs.js, no inline code) renders it into
 * #swagger-ui; without JavaScript the page lists every operation and links
 * the JSON description, and docs.js hides that list once Swagger UI is up.
 */
export function DocsPage(props: DocsView) {
  return (
    <Page
      title="API reference"
      area="public"
      path="/docs"
      stylesheets={[`${DOCS_ASSETS}/swagger-ui.css`, `${DOCS_ASSETS}/docs.css`]}
      scripts={[`${DOCS_ASSETS}/swagger-ui-bundle.js`, `${DOCS_ASSETS}/docs.js`]}
    >
      <p>
        {props.title}, version {props.version}: every operation of <code>/v1</code> with its parameters, request and response
        examples, the credential headers, rate-limit headers and error reasons. The machine-readable description (OpenAPI 3.1) is{' '}
        <a href="/v1/openapi.json">
          <code>/v1/openapi.json</code>
        </a>
        .
      </p>
      <p class="muted">
        Every call except <code>GET /v1/status</code> carries both <code>X-Service-User-Id</code> and <code>X-Service-Api-Key</code>;
        your user id and key are in the portal under API key. Keep the key out of source control and out of web pages.
      </p>
      <section id="docs-fallback" aria-labelledby="operations-h">
        <h2 id="operations-h">Operations</h2>
        <p class="muted">
          The full reference needs JavaScript; without it, here is every operation, and the JSON description above has all the details.
        </p>
        <DataTable labelledBy="operations-h" columns={['Method', 'Path', 'What it does']}>
          {props.operations.map((o) => (
            <tr>
              <td>
                <code>{o.method}</code>
              </td>
              <td>
                <code>/v1{o.path}</code>
              </td>
              <td>{o.summary}</td>
            </tr>
          ))}
        </DataTable>
      </section>
      <div id="swagger-ui" class="swagger-host"></div>
    </Page>
  )
}
