import type { JwtSignOptions } from '@pf/platform/identity';
import { serviceContractChecks } from '@pf/platform/testing/service-contract';
import { accountsService, ACCOUNTS_MIGRATIONS_DIR } from '../src';

const jwt: JwtSignOptions = { algorithm: 'HS256', key: 'accounts-test-secret-accounts-test-secret', issuer: 'pf-test', audience: 'pf-graph', expiresInSeconds: 300 };

describe('accounts service process wiring', () => {
  it('owns Postgres schema accounts (migrations and drift: schema.int.spec.ts)', () => {
    expect(accountsService.schema).toBe('accounts');
    expect(accountsService.migrationsDir).toBe(ACCOUNTS_MIGRATIONS_DIR);
  });

  serviceContractChecks(accountsService, { jwt, sdlShows: [/type Channel\s+@key\(fields: "id"/] });
});
