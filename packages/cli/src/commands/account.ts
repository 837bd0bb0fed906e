import { ApiError } from 'advertiser-campaign-sdk/client'
import type { Command } from 'commander'
import { Context, type Io } from '../context.js'
import { credentialsPath, forget, store } from '../credentials.js'
import { noCredentials } from '../exit.js'
import { count, instant, usdFromCents, usdFromMicros, usdPrice } from '../format.js'

export function accountCommands(program: Command, io: Io): void {
  program
    .command('login')
    .description('Check credentials with GET /v1/account and store them (mode 0600) for later commands')
    .action(async (_options: unknown, command: Command) => {
      const ctx = Context.of(command, io)
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
      await store(path, { userId, apiKey })
      ctx.out.data(account)
      ctx.out.line(`Logged in as ${account.user_id} (key ${account.key_prefix}…) on ${ctx.apiUrl}.`)
      ctx.out.line(`Credentials stored in ${path} (mode 0600).`)
    })

  program
    .command('logout')
    .description('Forget the stored credentials')
    .action(async (_options: unknown, command: Command) => {
      const ctx = Context.of(command, io)
      const path = credentialsPath(io.env)
      const removed = await forget(path)
      ctx.out.data({ logged_out: removed, path })
      ctx.out.line(removed ? `Logged out: ${path} removed.` : 'Not logged in: no stored credentials.')
    })

  program
    .command('account')
    .description('The account, its balance, what it may do and the live order limits')
    .action(async (_options: unknown, command: Command) => {
      const ctx = Context.of(command, io)
      const a = await (await ctx.client()).account()
      ctx.out.data(a)
      ctx.out.pairs([
        ['User id', a.user_id],
        ['Key', `${a.key_prefix}… (last used ${a.key_last_used_at ? instant(a.key_last_used_at) : 'never'})`],
        ['Billing', `${a.billing} · collection ${a.billing_profile.collection_status}`],
        ['Owed', `${usdFromCents(a.balance.owed_cents)} (invoiced ${usdFromCents(a.balance.invoiced_cents)}, pending ${usdFromCents(a.balance.pending_cents)})`],
        ['Delivered, not yet billed', usdFromMicros(a.balance.unbilled_delivered_micros)],
        ['Campaign writes', [a.access.campaign_writes, !a.access.write_approved && 'awaiting approval', !a.access.terms_accepted && 'API terms not accepted', a.access.billing_reason].filter(Boolean).join(' · ')],
        ['Order limits', `bid ≥ ${usdPrice(a.config.min_cpm_usd)} CPM · ≤ ${count(a.config.max_blocks)} blocks of ${count(a.config.block_impressions)} · ≤ ${usdPrice(a.config.max_total_usd)} an order`],
      ])
    })
}
