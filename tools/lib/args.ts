/** Command-line and environment settings of the tools. */

/** A positive number from a flag, else from the environment variable `envName`, else `fallback`. */
export function positiveSetting(flag: string | undefined, envName: string, fallback: number): number {
  const raw = flag ?? process.env[envName]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!(n > 0)) throw new Error(`${envName}: must be a positive number, got "${raw}"`)
  return n
}

/** A number given as `--name`, or undefined when absent. */
export function optionalNumber(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined
  const n = Number(raw)
  if (!Number.isFinite(n)) throw new Error(`--${name}: not a number: "${raw}"`)
  return n
}
