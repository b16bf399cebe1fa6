-- Run once by CloudNativePG as the superuser in the application database (pf), right after
-- initdb (postgres.yaml: postInitApplicationSQLRefs), and by deploy/compose for the laptop.
--
-- One role per service, named like its schema, owning that schema and nothing else:
--   * the database: CONNECT and TEMPORARY only; no CREATE, so no role can add schemas;
--   * its own schema: owner, so its migrations (node dist/migrate.js, search_path = the schema)
--     create and alter its tables, and its runtime reads and writes them;
--   * every other schema: no USAGE, so it cannot even see another service's tables;
--   * public: nothing (PostgreSQL 15+ already withholds CREATE; USAGE goes too).
-- CloudNativePG's managed roles (spec.managed.roles) then give each role LOGIN and its password
-- from the Secret pf-postgres-<service>. Services read each other's facts through the gateway,
-- direct subgraph calls or events, never through the database (ARCHITECTURE principle 1).
--
-- pf.role_suffix exists for deploy/test/postgres-roles.int.spec.ts only, which runs this very
-- file on a shared test server where role names must be unique; unset, it adds nothing.
DO $bootstrap$
DECLARE
  service text;
  role_name text;
BEGIN
  EXECUTE format('REVOKE ALL ON DATABASE %I FROM PUBLIC', current_database());
  REVOKE ALL ON SCHEMA public FROM PUBLIC;
  FOREACH service IN ARRAY ARRAY['accounts', 'catalog', 'stock', 'orders', 'webhooks'] LOOP
    role_name := service || coalesce(current_setting('pf.role_suffix', true), '');
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = role_name) THEN
      -- NOLOGIN until the operator's managed role sets LOGIN and the password.
      EXECUTE format('CREATE ROLE %I NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT', role_name);
    END IF;
    EXECUTE format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO %I', current_database(), role_name);
    EXECUTE format('CREATE SCHEMA IF NOT EXISTS %I AUTHORIZATION %I', service, role_name);
    EXECUTE format('REVOKE ALL ON SCHEMA %I FROM PUBLIC', service);
    -- Unqualified names resolve to the service's own schema.
    EXECUTE format('ALTER ROLE %I IN DATABASE %I SET search_path = %I', role_name, current_database(), service);
  END LOOP;
END
$bootstrap$;
