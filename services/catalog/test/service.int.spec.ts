import type { JwtSignOptions } from '@pf/platform/identity';
import { serviceContractChecks } from '@pf/platform/testing/service-contract';
import { catalogService, CATALOG_MIGRATIONS_DIR } from '../src';

const jwt: JwtSignOptions = { algorithm: 'HS256', key: 'catalog-test-secret-catalog-test-secret', issuer: 'pf-test', audience: 'pf-graph', expiresInSeconds: 300 };

describe('catalog service process wiring', () => {
  it('owns Postgres schema catalog (migrations and drift: schema.int.spec.ts)', () => {
    expect(catalogService.schema).toBe('catalog');
    expect(catalogService.migrationsDir).toBe(CATALOG_MIGRATIONS_DIR);
  });

  serviceContractChecks(catalogService, { jwt, sdlShows: [/type Product\s+@key\(fields: "uuid"/] });
});
