import type { CampaignWrites } from './access.ts'

/** What the approval email needs: the account, what still blocks writes after the approval, and the portal's address. */
export interface ApprovalFacts {
  userId: string
  /** `access.campaign_writes` once approved (domain/access.ts#campaignWrites). */
  writes: CampaignWrites
  /** The service's public URL, without a trailing slash. */
  portalBase: string
}

/** The next step after approval, in the order of `access.campaign_writes` (operations.md section 6). */
function nextStep(writes: CampaignWrites, base: string): string[] {
  switch (writes) {
    case 'terms_required':
      return ['Next step: read and accept the API terms.', `${base}/portal/terms`, '', 'Then set up billing (a card for weekly auto-pay, or Net 30 invoicing) and create your first campaign.']
    case 'billing_required':
      return ['Next step: set up billing, a card for weekly auto-pay or a request for Net 30 invoicing.', `${base}/portal/billing`, '', 'Then create your first campaign.']
    case 'operational':
      return ['Next step: create your first campaign.', `${base}/portal/campaigns/new`]
    case 'disabled':
      return ['An operator has switched campaign writes off for this account for now; reads still work. Contact support to reopen them.']
    case 'pending_approval':
      return [`Your overview shows what is left: ${base}/portal`]
  }
}

/** The email an advertiser gets when an operator approves the account for campaign writes (issue 51). */
export function approvalEmail(f: ApprovalFacts): { subject: string; text: string } {
  return {
    subject: 'Your advertiser account is approved',
    text: [
      'An operator approved your advertiser account: it may create and change campaigns once the steps below are done.',
      '',
      `Your user id: ${f.userId}`,
      '',
      ...nextStep(f.writes, f.portalBase),
      '',
      `Your overview in the portal lists every step and ticks those done: ${f.portalBase}/portal`,
    ].join('\n'),
  }
}
