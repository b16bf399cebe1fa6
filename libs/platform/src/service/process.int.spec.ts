import { execFile } from 'node:child_process';
import path from 'node:path';
import { freePort, testInfra } from '../testing/infra';

const PROCESS_MODULE = path.resolve(__dirname, '../../dist/service/process.js');

/** Runs a service definition whose migrations folder is `migrationsDir` through the production runner. */
function runWithMigrationsDir(migrationsDir: string, port: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = `
    const express = require('express');
    require(${JSON.stringify(PROCESS_MODULE)}).runServiceProcess({
      name: 'probe', schema: 'probe', migrationsDir: ${JSON.stringify(migrationsDir)}, defaultPort: ${port},
      create: async () => ({ app: express(), start: async () => {}, stop: async () => {}, ready: async () => {} }),
    });`;
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: testInfra.postgresAdminUrl, EVENT_BUS: 'memory', JWT_VERIFY_KEY: 'k', HOST: '127.0.0.1' };
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', script], { env, timeout: 20_000, cwd: path.resolve(__dirname, '../..') }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

describe('runServiceProcess and the migrations its image ships', () => {
  it('exits 78 with one line saying the image is incomplete when its migrations folder cannot be read', async () => {
    const { code, stdout } = await runWithMigrationsDir('/nonexistent/migrations', await freePort());
    expect(code).toBe(78);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 60, msg: expect.stringContaining('the migrations of this release cannot be read') });
    expect(lines[0]!.msg).toContain('/nonexistent/migrations');
  }, 30_000);
});
