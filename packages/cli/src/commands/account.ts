import { ApiError } from 'advertiser-campaign-sdk/client'
import type { Command } from 'commander'
import { Context, type Io } from '../context.js'
import { credentialsPath, forgetProfile, readProfiles, storeProfile } from '../credentials.js'
import { noCredentials } from '../exit.js'
import { count, instant, usdFromCents, usdFromMicros, usdPrice } from '../format.js'

export function accountCommands(program: Command, io: Io): void {
  program
    .command('login')
    .description('Check credentials with GET /v1/account and store them with the service URL (mode 0600), as the profile --profile names')
    .action(async (_options: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      ctx.checkApiUrl()
      const userId = ctx.options.userId ?? io.env.ADCTL_USER_ID ?? (await ctx.ask('User id (usr_…)', '--user-id'))
      const apiKey = ctx.options.apiKey ?? io.env.ADCTL_API_KEY ?? (await ctx.ask('API key (sk_live_…)', '--api-key', true))
      const account = await ctx
        .clientFor(userId, apiKey)
        .account()
        .catch((e: unknown) => {
          if (e instanceof ApiError && e.status === 401) throw noCredentials(`Those credentials were refused by ${ctx.apiUrl} (invalid credentials); nothing was stored.`)
          throw e
        })
      const path = credentialsPath(io.env)
      await storeProfile(path, ctx.profileName, { apiUrl: ctx.apiUrl, userId, apiKey })
      ctx.out.data(account)
      ctx.out.line(`Logged in as ${account.user_id} (key ${account.key_prefix}…) on ${ctx.apiUrl}.`)
      ctx.out.line(`Stored as profile ${ctx.profileName} in ${path} (mode 0600): later commands${ctx.profileName === 'default' ? '' : ` with --profile ${ctx.profileName}`} use this service and key.`)
    })

  program
    .command('logout')
    .description('Forget the stored login of the profile (--profile, else ADCTL_PROFILE, else "default")')
    .action(async (_options: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const path = credentialsPath(io.env)
      const removed = await forgetProfile(path, ctx.profileName)
      ctx.out.data({ logged_out: removed, profile: ctx.profileName, path })
      ctx.out.line(removed ? `Logged out: profile ${ctx.profileName} removed from ${path}.` : `Not logged in: no stored profile ${ctx.profileName}.`)
    })

  program
    .command('profiles')
    .description('The stored logins: each profile, its service and user id (never the key)')
    .action(async (_options: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const profiles = [...(await readProfiles(credentialsPath(io.env)))].map(([name, p]) => ({ name, api_url: p.apiUrl, user_id: p.userId, current: name === ctx.profileName }))
      ctx.out.data({ profiles })
      if (profiles.length === 0) return ctx.out.line('No stored logins: `adctl login` stores one.')
      ctx.out.table(
        ['', 'Profile', 'Service', 'User id'],
        profiles.map((p) => [p.current ? '*' : '', p.name, p.api_url ?? '(any: stored before URLs were kept)', p.user_id]),
      )
    })

  program
    .command('account')
    .description('The account, its balance, what it may do and the live order limits')
    .action(async (_options: unknown, command: Command) => {
      const ctx = await Context.of(command, io)
      const a = await (await ctx.client()).account()
      ctx.out.data(a)
      const b = a.balance
      // owed = delivered, not yet invoiced + finalized invoices not paid or voided − unapplied credits (balance.ts).
      const unpaidInvoices = b.owed_cents - b.pending_cents + b.credits_cents
      ctx.out.pairs([
        ['User id', a.user_id],
        ['Key', `${a.key_prefix}… (last used ${a.key_last_used_at ? instant(a.key_last_used_at) : 'never'})`],
        ['Billing', `${a.billing} · collection ${a.billing_profile.collection_status}`],
        ['Owed', `${usdFromCents(b.owed_cents)} = unpaid invoices ${usdFromCents(unpaidInvoices)} + delivered, not yet invoiced ${usdFromCents(b.pending_cents)}${b.credits_cents ? ` − credits ${usdFromCents(b.credits_cents)}` : ''}`],
        ['Invoiced to date', `${usdFromCents(b.invoiced_cents)} (paid ${usdFromCents(b.paid_cents)}${b.voided_cents ? `, voided ${usdFromCents(b.voided_cents)}` : ''})`],
        ['Next invoice', b.next_invoice_at ? instant(b.next_invoice_at) : '-'],
        ['Delivered, not yet billed', usdFromMicros(b.unbilled_delivered_micros)],
        ['Campaign writes', [a.access.campaign_writes, !a.access.write_approved && 'awaiting approval', !a.access.terms_accepted && 'API terms not accepted', a.access.billing_reason].filter(Boolean).join(' · ')],
        ['Order limits', `bid ≥ ${usdPrice(a.config.min_cpm_usd)} CPM · ≤ ${count(a.config.max_blocks)} blocks of ${count(a.config.block_impressions)} · ≤ ${usdPrice(a.config.max_total_usd)} an order`],
      ])
    })
}
