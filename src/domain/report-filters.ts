import { invalid } from './errors.ts'
import { SURFACES, type Surface } from './auction.ts'

/**
 * Filters shared by /stats and exports: each dimension is a list (null = all),
 * and dimensions are intersected. Campaign and creative ids are checked
 * against the account by the store (an unknown or foreign id is 404).
 */
export interface ReportFilters {
  campaignIds: string[] | null
  creativeIds: string[] | null
  surfaces: Surface[] | null
  countries: string[] | null
}

export const NO_FILTERS: ReportFilters = { campaignIds: null, creativeIds: null, surfaces: null, countries: null }

const isSurface = (s: string): s is Surface => SURFACES.some((x) => x === s)

/** Parses and validates list values (from a comma-separated query value or a JSON array). */
export function parseFilterLists(
  input: { campaign?: string[]; creative?: string[]; surface?: string[]; country?: string[] },
  fields: { campaign: string; creative: string; surface: string; country: string },
  limits: { campaign: number; creative: number; surface: number; country: number },
): ReportFilters {
  const clean = (values: string[] | undefined, field: string, max: number): string[] | null => {
    if (values === undefined) return null
    const list = [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))]
    if (list.length === 0) throw invalid(field, 'empty')
    if (list.length > max) throw invalid(field, 'too_many_items', { limit: max })
    return list.sort()
  }
  const surfaces = clean(input.surface, fields.surface, limits.surface)
  if (surfaces && !surfaces.every(isSurface)) throw invalid(fields.surface, 'invalid_value', { allowed: [...SURFACES] })
  const countries = clean(input.country, fields.country, limits.country)
  for (const c of countries ?? []) if (!/^[A-Z]{2}$/.test(c)) throw invalid(fields.country, 'invalid_format')
  return {
    campaignIds: clean(input.campaign, fields.campaign, limits.campaign),
    creativeIds: clean(input.creative, fields.creative, limits.creative),
    surfaces,
    countries,
  }
}

/** Echo form used in responses (`filters`): only the dimensions that were set. */
export function echoFilters(f: ReportFilters): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  if (f.campaignIds) out.campaign_ids = f.campaignIds
  if (f.creativeIds) out.creative_ids = f.creativeIds
  if (f.surfaces) out.surfaces = f.surfaces
  if (f.countries) out.countries = f.countries
  return out
}
