// @ts-check
/**
 * What the invocation hands the refresher for topics: the tool's working directory, taken from
 * its stdin JSON. No I/O and no imports, so the invocation pays nothing for it on runs that do
 * not start a refresher.
 */

/**
 * The environment variable through which an invocation passes the working directory to the
 * refresher it starts (its own child: the value is not on the command line, so other users do
 * not see it in `ps`). Internal: the invocation always sets or removes it, a user's value is
 * never used.
 */
export const WORKSPACE_ENV = 'THINKING_LINE_WORKSPACE_DIR'

/** Topics are on unless `THINKING_LINE_TOPICS=off`. @param {NodeJS.ProcessEnv} env */
export function topicsEnabled(env) {
  return (env.THINKING_LINE_TOPICS ?? '').trim().toLowerCase() !== 'off'
}

/**
 * `workspace.current_dir` of the tool's stdin JSON when it is an absolute path, else null.
 * @param {unknown} input the parsed stdin JSON, or null
 */
export function workspaceDir(input) {
  if (input === null || typeof input !== 'object') return null
  const ws = /** @type {Record<string, unknown>} */ (input).workspace
  if (ws === null || typeof ws !== 'object') return null
  const dir = /** @type {Record<string, unknown>} */ (ws).current_dir
  if (typeof dir !== 'string' || dir.length > 4096 || dir.includes('\0')) return null
  return dir.startsWith('/') || /^[A-Za-z]:[\\/]/.test(dir) || dir.startsWith('\\\\') ? dir : null
}
