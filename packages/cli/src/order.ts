import type { Account } from 'advertiser-campaign-sdk/client'
import { Option, type Command } from 'commander'
import { badFlags, type Problem } from './exit.js'
import { usdPrice } from './format.js'
import { nearest } from './problems.js'

/** An order's flags as typed: `campaigns create` and `quote` read them all, then report every problem at once. */
export interface OrderFlags {
  line?: string
  destination?: string
  cpm?: string
  impressions?: string
  blocks?: string
  name?: string
  brand?: string
  surface?: string
  countries?: string
  topics?: string
  pace?: string
  kind?: string
}

export interface Order {
  cpm: number
  impressions: number | undefined
  /** Whether the size was given in blocks (the messages then speak of blocks). */
  inBlocks: boolean
  surface: 'extension' | 'terminal' | undefined
  countries: string[] | undefined
  topics: string[] | undefined
  pace: number | undefined
  kind: 'impression' | 'click' | undefined
}

/** Impressions in a block (advertiser spec: config.block_impressions, 1,000). */
export const BLOCK = 1000

/** The order flags of `create` (`required`) or `quote`. Values are read as text and checked together by `readOrder`. */
export function orderOptions(cmd: Command, required: boolean): Command {
  if (required) {
    cmd.option('--line <ad_line>', 'the ad line, 3-60 characters (required)').option('--destination <url>', 'https:// address a click opens (required)')
  }
  return cmd
    .option('--cpm <usd>', 'bid in USD per 1,000 impressions (required)')
    .option('--impressions <n>', `order size: 1,000 to 100,000, a multiple of 1,000${required ? ' (this or --blocks is required)' : ' (default 1,000)'}`)
    .option('--blocks <n>', 'order size in blocks of 1,000 impressions (instead of --impressions)')
    .addOption(new Option('--surface <surface>', 'where it serves, when the service sells surfaces apart (default: extension then; both surfaces otherwise)'))
    .option('--countries <codes>', 'comma-separated ISO 3166-1 alpha-2 codes (when country targeting is on)')
    .option('--topics <names>', 'comma-separated topics from GET /serve/v1/topics (at most 10): serve only where the project shows one')
    .option('--kind <kind>', 'impression (default) or click')
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')

/**
 * Checks every order flag and answers the order or every problem found (each naming its flag and
 * the rule in words). With the account's live `config`, also the bid floor, the blocks and the
 * order total; with the topic vocabulary, each topic (suggesting the nearest name for a typo).
 */
export function readOrder(f: OrderFlags, required: boolean, config: Account['config'] | null, vocabulary: readonly string[] | null): { order: Order | null; problems: Problem[] } {
  const problems: Problem[] = []
  const problem = (flag: string, message: string, field?: string, reason?: string) => problems.push({ flag, message, ...(field ? { field } : {}), ...(reason ? { reason } : {}) })
  const block = config?.block_impressions ?? BLOCK

  if (required) {
    if (f.line === undefined) problem('--line', 'is required: the one line of the ad', 'ad_line', 'required')
    if (f.destination === undefined) problem('--destination', 'is required: the https:// address a click opens', 'destination_url', 'required')
  }

  let cpm: number | undefined
  if (f.cpm === undefined) problem('--cpm', 'is required: the bid in USD per 1,000 impressions, such as 2.50', 'cpm_usd', 'required')
  else if (!/^\$?\d+(\.\d+)?$/.test(f.cpm) || !(Number(f.cpm.replace(/^\$/, '')) > 0)) problem('--cpm', `must be a price in USD above 0, such as 2.50 (got ${JSON.stringify(f.cpm)})`, 'cpm_usd', 'invalid_format')
  else {
    cpm = Number(f.cpm.replace(/^\$/, ''))
    if ((f.cpm.split('.')[1] ?? '').length > 6) problem('--cpm', 'has more than the 6 decimals a bid may have', 'cpm_usd', 'too_precise')
    else if (config && cpm < config.min_cpm_usd) problem('--cpm', `must be at least ${usdPrice(config.min_cpm_usd)} (the bid floor; ${usdPrice(cpm)} is below it)`, 'cpm_usd', 'below_minimum')
  }

  let impressions: number | undefined
  const inBlocks = f.blocks !== undefined
  if (f.impressions !== undefined && f.blocks !== undefined) problem('--blocks', `cannot be combined with --impressions: both give the size, give one (1 block = ${block.toLocaleString('en-US')} impressions)`, 'impressions', 'conflicting_size')
  else if (f.blocks !== undefined) {
    if (!/^\d+$/.test(f.blocks) || Number(f.blocks) < 1) problem('--blocks', `must be a whole number of blocks, at least 1 (got ${JSON.stringify(f.blocks)})`, 'impressions', 'invalid_format')
    else impressions = Number(f.blocks) * block
  } else if (f.impressions !== undefined) {
    const n = Number(f.impressions.replace(/[,_]/g, ''))
    if (!Number.isSafeInteger(n) || n < block || n % block !== 0) problem('--impressions', `must be whole blocks: a multiple of ${block.toLocaleString('en-US')}, at least ${block.toLocaleString('en-US')} (got ${JSON.stringify(f.impressions)}; or give --blocks)`, 'impressions', 'not_a_multiple_of_block')
    else impressions = n
  } else if (required) problem('--impressions', `or --blocks is required: the order size (1 block = ${block.toLocaleString('en-US')} impressions)`, 'impressions', 'required')
  const sizeFlag = inBlocks ? '--blocks' : '--impressions'
  if (impressions !== undefined) {
    const blocks = impressions / block
    const maxBlocks = config?.max_blocks ?? 100
    if (blocks > maxBlocks) problem(sizeFlag, `is more than the ${maxBlocks.toLocaleString('en-US')} blocks (${(maxBlocks * block).toLocaleString('en-US')} impressions) one order may have`, 'impressions', 'too_many_blocks')
    else if (config && cpm !== undefined && cpm * blocks > config.max_total_usd + 1e-9) {
      problem('--cpm', `with ${sizeFlag} makes an order of ${usdPrice(cpm * blocks)}, over the ${usdPrice(config.max_total_usd)} one order may total: lower --cpm or the size`, 'cpm_usd', 'order_total_exceeded')
    }
  }

  let surface: Order['surface']
  if (f.surface !== undefined) {
    if (f.surface !== 'extension' && f.surface !== 'terminal') problem('--surface', `must be extension or terminal (got ${JSON.stringify(f.surface)})`, 'target_surface', 'invalid_value')
    else if (config && !config.surface_split_enabled) problem('--surface', 'this service sells both surfaces together (no surface split): leave --surface out', 'target_surface', 'surface_split_not_enabled')
    else surface = f.surface
  }

  let countries: string[] | undefined
  if (f.countries !== undefined) {
    countries = list(f.countries)
    const bad = countries.filter((c) => !/^[A-Za-z]{2}$/.test(c))
    if (countries.length === 0) problem('--countries', 'is empty: give ISO 3166-1 alpha-2 codes such as DE,FR', 'target_countries', 'empty')
    for (const c of bad) problem('--countries', `${JSON.stringify(c)} is not an ISO 3166-1 alpha-2 code (two letters, such as DE)`, 'target_countries', 'invalid_format')
    if (countries.length > 20) problem('--countries', `takes at most 20 codes (got ${countries.length})`, 'target_countries', 'too_many_items')
    if (config && !config.country_targeting_enabled) problem('--countries', 'country targeting is not enabled on this service: leave --countries out', 'target_countries', 'country_targeting_not_enabled')
  }

  let topics: string[] | undefined
  if (f.topics !== undefined) {
    topics = list(f.topics)
    if ([...new Set(topics)].length > 10) problem('--topics', `takes at most 10 topics (got ${new Set(topics).size})`, 'target_topics', 'too_many_topics')
    if (vocabulary) {
      for (const t of topics.filter((t) => !vocabulary.includes(t))) {
        const near = nearest(t, vocabulary)
        problem('--topics', `${JSON.stringify(t)} is not a topic${near ? `; did you mean ${JSON.stringify(near)}?` : ' (the topics: GET /serve/v1/topics)'}`, 'target_topics', 'unknown_topic')
      }
    }
  }

  let pace: number | undefined
  if (f.pace !== undefined) {
    if (!/^\d+$/.test(f.pace) || Number(f.pace) < 1 || Number(f.pace) > 10_080) problem('--pace', `must be whole minutes from 1 to 10,080 (a week) (got ${JSON.stringify(f.pace)})`, 'pace_minutes', 'invalid_format')
    else pace = Number(f.pace)
  }

  let kind: Order['kind']
  if (f.kind !== undefined) {
    if (f.kind !== 'impression' && f.kind !== 'click') problem('--kind', `must be impression or click (got ${JSON.stringify(f.kind)})`, 'kind', 'invalid_value')
    else kind = f.kind
  }

  if (problems.length > 0 || cpm === undefined) return { order: null, problems }
  return { order: { cpm, impressions, inBlocks, surface, countries, topics, pace, kind }, problems }
}

/**
 * Reads an order against the live config and topic names (`load`), reporting every problem at
 * once (exit 2): those of the flags' syntax and those of the service's limits together. When the
 * flags are already wrong and `load` fails (no credentials, no service), the syntax problems are
 * reported alone.
 */
export async function checkOrder(
  flags: OrderFlags,
  required: boolean,
  load: () => Promise<{ config: Account['config'] | null; vocabulary: readonly string[] | null }>,
): Promise<{ order: Order; config: Account['config'] | null }> {
  const syntax = readOrder(flags, required, null, null)
  let loaded: { config: Account['config'] | null; vocabulary: readonly string[] | null }
  try {
    loaded = await load()
  } catch (e) {
    if (syntax.problems.length > 0) throw badFlags(syntax.problems)
    throw e
  }
  const { order, problems } = readOrder(flags, required, loaded.config, loaded.vocabulary)
  if (order === null) throw badFlags(problems)
  return { order, config: loaded.config }
}

/** The topic names the service knows (its public GET /serve/v1/topics), or null when it does not say (the API then judges). */
export async function topicVocabulary(apiUrl: string): Promise<string[] | null> {
  try {
    const origin = new URL(apiUrl.replace(/\/v1\/?$/, '')).origin
    const response = await fetch(`${origin}/serve/v1/topics`, { signal: AbortSignal.timeout(10_000), redirect: 'error' })
    if (!response.ok) return null
    const body: unknown = await response.json()
    if (typeof body !== 'object' || body === null || !('topics' in body) || !Array.isArray(body.topics)) return null
    return body.topics.flatMap((t: unknown) => (typeof t === 'object' && t !== null && 'topic' in t && typeof t.topic === 'string' ? [t.topic] : []))
  } catch {
    return null
  }
}

/** `3 blocks (3,000 impressions)` or `3,000 impressions`, as the user gave the size. */
export const sizeInWords = (o: Pick<Order, 'impressions' | 'inBlocks'>, block = BLOCK) =>
  o.impressions === undefined ? 'one block (1,000 impressions)' : o.inBlocks ? `${(o.impressions / block).toLocaleString('en-US')} block${o.impressions === block ? '' : 's'} (${o.impressions.toLocaleString('en-US')} impressions)` : `${o.impressions.toLocaleString('en-US')} impressions`
