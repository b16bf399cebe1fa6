import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { migrate, serviceMigrationSources } from '../db/migrate';
import { signIdentity, type JwtSignOptions } from '../identity';
import type { ServiceDefinition } from '../service/service';
import { findPrismaDrift } from './prisma-drift';
import { serveOnTestDatabase, type ServedService } from './served-service';

export interface ServiceContract {
  jwt: JwtSignOptions;
  /**
   * The service's migrations and its schema.prisma. Left out by services whose own schema suite
   * checks migrating twice and drift in more depth.
   */
  migrations?: {
    /** The Postgres schema the service owns. */
    schema: string;
    /** Every migration, platform ones first, in the order they apply (a second run skips them all). */
    all: string[];
    prismaSchemaPath: string;
  };
  /** What the served SDL shows besides the federation link: text it contains, or a pattern it matches. */
  sdlShows?: (string | RegExp)[];
}

/**
 * Declares, in the calling describe block, the checks every subgraph service process passes:
 * it serves on a fresh database (background work started), owns its schema, migrates again
 * without change, agrees with schema.prisma, answers /healthz and /readyz, and serves its SDL to
 * identified callers only. Returns the served service, for the suite's own checks.
 */
export function serviceContractChecks(def: ServiceDefinition, contract: ServiceContract): () => ServedService {
  let served: ServedService | undefined;
  beforeAll(async () => {
    served = await serveOnTestDatabase(def, { jwt: contract.jwt, startBackgroundWork: true });
  }, 30_000);
  afterAll(async () => {
    await served?.close();
  }, 30_000);
  const current = (): ServedService => {
    if (!served) throw new Error(`${def.name} is not served (its beforeAll failed)`);
    return served;
  };

  const { migrations } = contract;
  if (migrations) {
    it(`owns Postgres schema ${migrations.schema}, migrated with the platform tables, and migrating again changes nothing`, async () => {
      expect(def.schema).toBe(migrations.schema);
      const again = await migrate({ connectionString: current().db.url, schema: migrations.schema, sources: serviceMigrationSources(def.migrationsDir!) });
      expect(again).toEqual({ applied: [], skipped: migrations.all });
    });

    it('schema.prisma and the migrated database agree', async () => {
      expect(await findPrismaDrift({ schemaPath: migrations.prismaSchemaPath, connectionString: current().db.url, schema: migrations.schema })).toEqual([]);
    });
  }

  it('answers /healthz and /readyz', async () => {
    const { base } = current();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('serves its subgraph SDL to callers with an identity JWT, and nothing to callers without', async () => {
    const { graphqlUrl } = current();
    const query = JSON.stringify({ query: '{ _service { sdl } }' });
    const anonymous = await fetch(graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: query });
    expect(anonymous.status).toBe(401);
    const authorization = `Bearer ${signIdentity({ kind: 'service', service: 'test' }, contract.jwt)}`;
    const res = await fetch(graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: query });
    const { sdl } = ((await res.json()) as { data: { _service: { sdl: string } } }).data._service;
    expect(sdl).toContain('https://specs.apollo.dev/federation/v2.7');
    for (const shown of contract.sdlShows ?? []) {
      if (typeof shown === 'string') expect(sdl).toContain(shown);
      else expect(sdl).toMatch(shown);
    }
  });

  return current;
}
