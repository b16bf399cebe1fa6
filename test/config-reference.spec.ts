import { execFileSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(__dirname, '..');

describe('README configuration table', () => {
  it('lists every variable the services read, with the defaults the code applies', () => {
    // Reads the compiled config schemas (npm test builds first) and compares with README.md.
    expect(() =>
      execFileSync(process.execPath, [path.join(root, 'scripts/config-reference.mjs'), '--check'], {
        cwd: root,
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });
});
