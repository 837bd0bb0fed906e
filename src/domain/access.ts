/**
 * The access model (advertiser spec section 1, operations.md section 6):
 * reads are always allowed; writes need approval, terms and working billing.
 * When several are missing, the first in this order is named, and 403 wins
 * over 402.
 */
export type CampaignWrites = 'operational' | 'disabled' | 'pending_approval' | 'terms_required' | 'billing_required'

export interface AccessFacts {
  writes_disabled: boolean
  write_approved: boolean
  terms_accepted: boolean
  effective_billing_mode: string
  collection_status: string
}

export function campaignWrites(a: AccessFacts): CampaignWrites {
  if (a.writes_disabled) return 'disabled'
  if (!a.write_approved) return 'pending_approval'
  if (!a.terms_accepted) return 'terms_required'
  if (a.effective_billing_mode === 'disabled' || a.collection_status !== 'ready') return 'billing_required'
  return 'operational'
}

const WRITE_DENIAL: Record<Exclude<CampaignWrites, 'operational'>, { status: 402 | 403; detail: string }> = {
  disabled: { status: 403, detail: 'campaign writes are disabled for this account' },
  pending_approval: { status: 403, detail: 'campaign write approval is pending; reads remain available' },
  terms_required: { status: 403, detail: 'the API terms must be accepted in the portal before campaign writes' },
  billing_required: { status: 402, detail: 'billing setup or payment recovery is required before campaign writes' },
}

export function writeDenial(state: CampaignWrites): { status: 402 | 403; detail: string } | null {
  return state === 'operational' ? null : WRITE_DENIAL[state]
}
