import { hash, verify } from '@node-rs/argon2'

/**
 * Password hashing: argon2id with OWASP's baseline (19 MiB, 2 passes, 1 lane),
 * run off the event loop by @node-rs/argon2's thread pool. The PHC string
 * carries its parameters, so raising them later still verifies old hashes.
 */
// `algorithm: 2` is Algorithm.Argon2id (a const enum, which isolated modules cannot read).
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS)
}

/** A real hash of a password nobody has: checked when the email is unknown, so both paths take as long. */
let decoy: Promise<string> | null = null

/** Constant-time check (inside argon2's verify); a null hash is checked against the decoy and fails. */
export async function passwordMatches(password: string, stored: string | null): Promise<boolean> {
  decoy ??= hashPassword('decoy password that no account has')
  const target = stored ?? (await decoy)
  try {
    return (await verify(target, password)) && stored !== null
  } catch {
    return false
  }
}
