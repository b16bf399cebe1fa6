import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
// Each case starts node and loads @apollo/composition: about a second alone, more on a busy machine.
const TIMEOUT_MS = 30_000;
const root = path.resolve(__dirname, '..', '..');
const script = path.join(root, 'scripts', 'compose-supergraph.mjs');

/** Runs the project's compose script; resolves with its exit status and output. */
async function compose(args: string[]): Promise<{ status: number; output: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], { cwd: root });
    return { status: 0, output: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { status: e.code, output: e.stdout + e.stderr };
  }
}

describe('supergraph composition', () => {
  it('composes every subgraph in gateway/subgraphs.json into exactly the committed gateway/supergraph.graphql', async () => {
    const { status, output } = await compose(['--check']);
    expect(output).toContain('supergraph up to date: gateway/supergraph.graphql');
    expect(status).toBe(0);
  }, TIMEOUT_MS);

  describe('with a scratch list of subgraphs', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'pf-compose-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    async function list(sdls: Record<string, string>): Promise<string> {
      const subgraphs = [];
      for (const [name, sdl] of Object.entries(sdls)) {
        const file = path.join(dir, `${name}.graphql`);
        await writeFile(file, sdl);
        subgraphs.push({ name, sdl: [file], url: `http://127.0.0.1:1/${name}`, urlEnv: `SUBGRAPH_${name.toUpperCase()}_URL` });
      }
      const file = path.join(dir, 'subgraphs.json');
      await writeFile(file, JSON.stringify({ subgraphs }));
      return file;
    }

    const fed = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"])\n';

    it('fails, naming the error, when the subgraphs do not compose', async () => {
      const subgraphs = await list({
        a: `${fed}type Query { team: Team }\ntype Team @key(fields: "code") { code: ID! }\n`,
        b: `${fed}type Team @key(fields: "code") { code: String! }\n`,
      });
      const out = path.join(dir, 'broken.graphql');
      const { status, output } = await compose(['--write', '--subgraphs', subgraphs, '--out', out]);
      expect(status).toBe(1);
      expect(output).toContain('FIELD_TYPE_MISMATCH');
      expect(output).toContain('Team.code');
    }, TIMEOUT_MS);

    it('writes a fresh file, then --check passes; a stale file fails --check', async () => {
      const subgraphs = await list({ a: `${fed}type Query { team: Team }\ntype Team @key(fields: "code") { code: ID! }\n`, b: fed });
      const out = path.join(dir, 'supergraph.graphql');
      expect((await compose(['--write', '--subgraphs', subgraphs, '--out', out])).status).toBe(0);
      expect((await compose(['--check', '--subgraphs', subgraphs, '--out', out])).status).toBe(0);

      await writeFile(out, '# stale\n');
      const stale = await compose(['--check', '--subgraphs', subgraphs, '--out', out]);
      expect(stale.status).toBe(2);
      expect(stale.output).toContain('differs from a fresh composition');
    }, TIMEOUT_MS);
  });
});
