import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely'

const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations/', import.meta.url))

/**
 * Versioned plain-SQL migrations (`NNNN_name.sql`), applied in name order by
 * Kysely's Migrator, which records them and takes a lock so that several
 * instances starting at once apply each file exactly once.
 */
class SqlFileMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort()
    const migrations: Record<string, Migration> = {}
    for (const file of files) {
      const text = await readFile(MIGRATIONS_DIR + file, 'utf8')
      migrations[file.replace(/\.sql$/, '')] = {
        // No parameters: pg sends it as a simple query, so one file may hold many statements.
        up: async (db) => {
          await sql.raw(text).execute(db)
        },
      }
    }
    return migrations
  }
}

/** A migration file that did not apply (start-up exits 70 naming it: docs/operations.md, "Start-up"). */
export class MigrationError extends Error {
  constructor(
    readonly migrationName: string | null,
    readonly reason: unknown,
  ) {
    super(`migration ${migrationName ?? '(none: the migrator itself)'} failed: ${reason instanceof Error ? reason.message : String(reason)}`)
  }
}

/** Applies every migration not yet applied; `through` (tests only) stops after that one, leaving a store as an older version did. */
export async function migrateToLatest(db: Kysely<unknown>, through?: string): Promise<void> {
  const migrator = new Migrator({ db, provider: new SqlFileMigrationProvider() })
  const { error, results } = through === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(through)
  const failed = results?.find((r) => r.status === 'Error')
  if (error || failed) {
    throw new MigrationError(failed?.migrationName ?? null, error)
  }
}
