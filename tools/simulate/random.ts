/** Deterministic randomness for the simulator: a seed string replays the same draws. */

function xmur3(str: string): () => number {
  let h = 1779033703 ^ str.length
  for (let i = 0; i < str.length; i++) {
    h = Math.imul(h ^ str.charCodeAt(i), 3432918353)
    h = (h << 13) | (h >>> 19)
  }
  return () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507)
    h = Math.imul(h ^ (h >>> 13), 3266489909)
    return (h ^= h >>> 16) >>> 0
  }
}

/** sfc32: small, fast, good enough for simulation choices; uniform in [0, 1). */
export function rng(seed: string): () => number {
  const s = xmur3(seed)
  let a = s(), b = s(), c = s(), d = s()
  return () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0
    let t = (a + b) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    d = (d + 1) | 0
    t = (t + d) | 0
    c = (c + t) | 0
    return (t >>> 0) / 4294967296
  }
}

/** Uniform in [lo, hi). */
export const uniform = (r: () => number, lo: number, hi: number): number => lo + r() * (hi - lo)

/** Log-normal with the given median and shape (sigma of the underlying normal). */
export function logNormal(r: () => number, median: number, sigma: number): number {
  // Box-Muller; 1 - r() keeps the logarithm finite.
  const z = Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r())
  return median * Math.exp(sigma * z)
}
