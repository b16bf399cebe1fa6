import { pendingMigrations, type MigrationSource } from '../db/migrate';

/** The database schema lacks migrations this release was built with. */
export class SchemaBehindError extends Error {
  constructor(
    readonly schema: string,
    readonly pending: string[],
  ) {
    super(
      `schema ${schema} lacks ${pending.length === 1 ? 'a migration' : `${pending.length} migrations`} this release needs ` +
        `(${pending.join(', ')}): run the service's migrations (node dist/migrate.js, the migration Job) first`,
    );
    this.name = 'SchemaBehindError';
  }
}

/**
 * Whether the service's schema has every migration the running release ships. A release started
 * on an older schema would fail its queries one by one; started before the migration Job ended
 * (manifests applied by hand, not through rollout.sh), it is better refused whole. Once the schema
 * is found complete the answer is kept: migrations are never taken back.
 */
export class MigratedSchemaCheck {
  private complete = false;

  constructor(private readonly opts: { connectionString: string; schema: string; sources: MigrationSource[] }) {}

  /** Resolves when the schema is complete; throws SchemaBehindError naming what is missing, or the database's error. */
  async verify(): Promise<void> {
    if (this.complete) return;
    const pending = await pendingMigrations({ ...this.opts, connectTimeoutMs: 1500 });
    if (pending.length > 0) throw new SchemaBehindError(this.opts.schema, pending);
    this.complete = true;
  }
}
