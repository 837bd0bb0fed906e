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
    const migrations: Record<string, Migration> = {}
    for (const file of await migrationFiles()) {
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

/** The migration files, in the order they apply. */
async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort()
}

/**
 * Whether the store has applied exactly these migrations and no other: then a start has
 * nothing to migrate and skips the Migrator, whose checks (catalog introspection, its lock
 * table, a locked transaction) cost a start more than everything else it reads. Any other
 * state (a new store, a pending file, a recorded name without its file) goes to the Migrator.
 */
async function allApplied(db: Kysely<unknown>): Promise<boolean> {
  const { rows } = await sql<{ exists: boolean }>`select to_regclass('kysely_migration') is not null as exists`.execute(db)
  if (!rows[0]?.exists) return false
  const applied = (await sql<{ name: string }>`select name from kysely_migration`.execute(db)).rows.map((r) => r.name).sort()
  const files = (await migrationFiles()).map((f) => f.replace(/\.sql$/, ''))
  return applied.length === files.length && applied.every((name, i) => name === files[i])
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
  if (through === undefined && (await allApplied(db))) return
  const migrator = new Migrator({ db, provider: new SqlFileMigrationProvider() })
  const { error, results } = through === undefined ? await migrator.migrateToLatest() : await migrator.migrateTo(through)
  const failed = results?.find((r) => r.status === 'Error')
  if (error || failed) {
    throw new MigrationError(failed?.migrationName ?? null, error)
  }
}
