import { Page } from '../layout.tsx'
import { EditorSurface, TerminalSurface, type AdSurfaceView } from '../ad-surfaces.tsx'

/** The example line of the home page, drawn by the same components as a preview page. */
export const HOME_EXAMPLE: AdSurfaceView = { adLine: 'Ship green builds with Acme CI', brand: 'Acme CI', iconUrl: null }

/** Where a newcomer goes from the home page; every page is one click from here, the portal's two (issue 35). */
export const HOME_LINKS = {
  signUp: '/portal/signup',
  signIn: '/portal/login',
  reference: '/docs',
  status: '/status',
  leaderboard: '/leaderboard',
} as const

/**
 * `/`: what the product is, the line as the tools show it, how the auction
 * and billing work (each claim from advertiser-api.md sections 1 and 2), and
 * the ways in. Static: no account data, no cookie, no script of its own.
 */
export function HomePage() {
  return (
    <Page
      title="Advertise in developers' AI coding tools"
      heading="Your line, while the AI is thinking"
      area="public"
      path="/"
      stylesheets={['/assets/public.css', '/assets/ad-surfaces.css']}
    >
      <p class="lead">
        While an AI coding assistant works, the editor's status bar and the terminal's status line show one short line, marked as an ad. Advertisers buy that
        line: in blocks of 1,000 impressions of ten seconds each, and you pay only for the views delivered, billed after delivery.
      </p>
      <p class="cta">
        <a class="button-link" href={HOME_LINKS.signUp}>
          Sign up
        </a>
        <span>
          Have an account? <a href={HOME_LINKS.signIn}>Sign in</a>
        </span>
      </p>

      <h2>What developers see</h2>
      <p>
        Your ad line (3 to 60 characters; 30 to 40 read best) after “Ad” and your brand, as the two clients show it: <code>Ad · Acme CI · Ship green builds with Acme CI</code>.
      </p>
      <div class="surfaces">
        <section aria-labelledby="surface-terminal">
          <h3 id="surface-terminal">Terminal status line</h3>
          <TerminalSurface view={HOME_EXAMPLE} />
        </section>
        <section aria-labelledby="surface-extension">
          <h3 id="surface-extension">Editor status bar</h3>
          <EditorSurface view={HOME_EXAMPLE} />
        </section>
      </div>
      <p class="muted">
        The portal and the API make a preview link of your own line in both looks; a preview creates no impression, click or charge.
      </p>

      <h2>How the auction works</h2>
      <ul class="points">
        <li>
          Every campaign, bought in the portal or through the API, enters one live auction ranked by price. You bid a CPM: US dollars per 1,000
          impressions, at or above the current floor.
        </li>
        <li>The highest bid serves first; a lower bid waits in the queue until it is the best one left.</li>
        <li>A campaign buys whole blocks of 1,000 impressions. An impression is ten seconds on screen; a measured view counts from 9.5 seconds.</li>
      </ul>

      <h2>How billing works</h2>
      <ul class="points">
        <li>No prepayment: only delivered value is billed, after delivery. The total shown when you order is a maximum, not a charge.</li>
        <li>Weekly auto-pay with a card (charged Mondays, 06:00 UTC), or Net 30 invoices once approved (monthly, on the 1st).</li>
        <li>Cancel at any time: delivered impressions are billed pro rata, undelivered ones never.</li>
      </ul>

      <h2>Watching delivery</h2>
      <ul class="points">
        <li>Delivery statistics over time, in the portal's charts and through the API.</li>
        <li>A CSV export of your ledger: every event with its surface, country and debit, and no viewer's identity.</li>
        <li>A shareable report page per campaign for anyone with the link, taken down again with “Stop sharing”.</li>
        <li>
          Brands of campaigns that opt in appear on the public <a href={HOME_LINKS.leaderboard}>leaderboard</a> of the last 30 days.
        </li>
      </ul>

      <h2>Getting started</h2>
      <ol class="points">
        <li>
          <a href={HOME_LINKS.signUp}>Sign up</a> with an email and a password.
        </li>
        <li>An operator approves each new account by hand, usually within one business day.</li>
        <li>In the portal, accept the API terms and set up billing.</li>
        <li>
          Create a campaign in the portal, or with your API key through the API (<a href={HOME_LINKS.reference}>API reference</a>).
        </li>
      </ol>

      <h2>More</h2>
      <ul class="points">
        <li>
          <a href={HOME_LINKS.reference}>API reference</a>: every operation of <code>/v1</code>, with examples.
        </li>
        <li>
          <a href={HOME_LINKS.status}>Service status</a>: whether each part of the service works right now.
        </li>
        <li>
          <a href={HOME_LINKS.leaderboard}>Leaderboard</a>: the brands with the most billable impressions over the last 30 days.
        </li>
      </ul>
    </Page>
  )
}
