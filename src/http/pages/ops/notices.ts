/**
 * Notices the console shows after a redirect (`?notice=<code>`): only these
 * codes, so a link cannot put words of its own on a page.
 */
const NOTICES: Record<string, string> = {
  signed_out: 'You are signed out.',
  setup_done: 'The console is set up and you are signed in. /ops/setup is now closed.',
  account_created: 'The account is created. Its email was sent a link to set the password of its portal sign-in.',
  write_approval: 'Write approval is updated.',
  terms: 'Terms acceptance is updated.',
  writes: 'The account’s writes switch is updated.',
  billing: 'Billing is enrolled.',
  hold: 'The collection hold is updated.',
  credit: 'The credit is posted.',
  unlocked: 'The address is unlocked.',
  not_locked: 'The address was not locked out; its failed attempts are forgotten.',
  moderated: 'The decision is recorded.',
  component: 'The component state is updated.',
  config: 'The config is updated.',
  config_unchanged: 'Nothing changed.',
  paid: 'The invoice is marked paid.',
  voided: 'The invoice is void.',
  job_ran: 'The job ran. Its result is in the audit log.',
  clock: 'The clock moved; every job due on the way has run.',
  blocked: 'Blocked: from the next view, its views and clicks do not bill.',
  already_blocked: 'It was already on the block list.',
  unblocked: 'The block is removed: its views and clicks bill again from the next one.',
}

export function opsNotice(code: string | undefined): string | null {
  return code !== undefined && Object.hasOwn(NOTICES, code) ? NOTICES[code]! : null
}
