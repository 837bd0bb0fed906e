/**
 * The rows services hand to the transport, named once. Routes, plugins and
 * presenters import these shapes from here, never from src/store (the lint
 * zone of src/http forbids even type imports from the store), so a change
 * of a store row shows up as a change of this service contract.
 */
export type { AccountRow } from '../store/accounts.ts'
export type { InvoiceRow, OverdueInvoice } from '../store/billing.ts'
export type { CampaignGraph } from '../store/campaigns.ts'
export type { ExportJobRow } from '../store/export-jobs.ts'
export type { OutboxMessage } from './email.ts'
export type { PreviewRow } from '../store/previews.ts'
export type { WebhookAttemptLine, WebhookEndpointRow, WebhookMessageRow } from '../store/webhooks.ts'
export type { CreativeMetrics } from '../store/creative-metrics.ts'
export type { TrafficBlockRow } from '../store/traffic-blocks.ts'
export type { TrafficBlockShown } from '../store/traffic-block-reads.ts'
