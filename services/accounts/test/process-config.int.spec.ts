import { execFile } from 'node:child_process';
import path from 'node:path';

const MAIN = path.resolve(__dirname, '../dist/main.js');

/** Runs the built accounts process with only `env` (and PATH); resolves with its exit code and output. */
function run(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 20_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

describe('a service process refuses a bad setting of its own as it does a shared one (exit 78, one log line naming it)', () => {
  const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', EVENT_BUS: 'memory', JWT_VERIFY_KEY: 'k' };

  it.each([
    ['a shared setting', { ...base, PORT: 'eighty' }, 'PORT'],
    // Read by the service's own create step: exited 1 with a stack trace on stderr before.
    ['its own setting', { ...base, ACCOUNTS_DB_POOL_MAX: 'abc' }, 'ACCOUNTS_DB_POOL_MAX'],
  ])('%s', async (_what, env, variable) => {
    const { code, stdout, stderr } = await run(env);
    expect(code).toBe(78);
    expect(stderr).toBe('');
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 60, msg: expect.stringMatching(new RegExp(`^Invalid configuration:\\n  ${variable}: `)) });
  }, 30_000);
});
