// The Dockerfiles, read as text (no container engine on the build machines): multi-stage from a
// pinned base, lock-file installs with only the service's production dependencies in the final
// stage, a non-root user, a HEALTHCHECK, node itself as PID 1, and every file the code reads at
// run time copied next to dist/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_PATH } from '../../services/rest-edge/src/contract/openapi';
import { DEFAULT_SUPERGRAPH_PATH, SUBGRAPH_LIST_PATH, readSubgraphList } from '../../gateway/src/subgraphs';
import { ROOT, SERVICE_DIRS, imageTag, isSecretVariable, ofKind, render } from './support/deploy';

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Instructions per stage; continuation lines joined, comments dropped. */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  const lines = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/).map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of lines) {
    const [op, ...rest] = line.split(/\s+/);
    const instruction = { op: op!.toUpperCase(), args: rest.join(' ') };
    if (instruction.op === 'FROM') {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args)!;
      stages.push({ from: m[1]!, ...(m[2] ? { name: m[2] } : {}), instructions: [] });
    } else if (stages.length === 0 && instruction.op === 'ARG') {
      const [k, v] = instruction.args.split('=');
      args.set(k!, v ?? '');
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { args, stages };
}

const dockerfile = (svc: string) => readFileSync(path.join(ROOT, 'deploy', 'docker', `${svc}.Dockerfile`), 'utf8');
const SERVICES = Object.keys(SERVICE_DIRS);
const rel = (abs: string) => path.relative(ROOT, abs).split(path.sep).join('/');

/** Files a service reads at run time from its package folder (beyond dist/ and node_modules/). */
function runtimeFiles(svc: string): string[] {
  const dir = SERVICE_DIRS[svc]!;
  const files: string[] = [];
  if (existsSync(path.join(ROOT, dir, 'migrations'))) files.push(`${dir}/migrations`, 'libs/platform/migrations');
  files.push(...readSubgraphList().filter((s) => s.sdl.every((f) => f.startsWith(`${dir}/`))).flatMap((s) => s.sdl));
  if (svc === 'rest-edge') files.push(rel(path.dirname(OPENAPI_PATH)));
  if (svc === 'gateway') files.push(rel(SUBGRAPH_LIST_PATH), rel(DEFAULT_SUPERGRAPH_PATH));
  return files;
}

/** Does a COPY source (with * globs) provide the file or folder `wanted`? */
function covers(source: string, wanted: string): boolean {
  const pattern = source.replace(/^\/src\//, '').replace(/\/$/, '');
  const re = new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
  return re.test(wanted);
}

describe.each(SERVICES)('%s image', (svc) => {
  const dir = SERVICE_DIRS[svc]!;
  const { args, stages } = parseDockerfile(dockerfile(svc));
  const final = stages.at(-1)!;
  const all = (op: string, stage?: Stage) => (stage ? stage.instructions : stages.flatMap((s) => s.instructions)).filter((i) => i.op === op);

  test('multi-stage, every stage from a pinned base image (never latest)', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const names = new Set(stages.map((s) => s.name).filter(Boolean));
    for (const s of stages) {
      const image = s.from.replace(/^\$\{?([A-Z_]+)\}?$/, (_, name: string) => args.get(name) ?? '');
      if (names.has(s.from)) continue;
      const { tag, digest } = imageTag(image);
      expect({ stage: s.name, image, pinned: Boolean(digest) || (Boolean(tag) && tag !== 'latest' && /\d/.test(tag!)) }).toEqual({ stage: s.name, image, pinned: true });
    }
  });

  test('installs from the lock file; the final stage gets only this workspace\'s production dependencies', () => {
    const runs = all('RUN').map((r) => r.args);
    expect(runs.some((r) => /\bnpm install\b/.test(r))).toBe(false);
    const productionInstall = runs.find((r) => /npm ci\b/.test(r) && r.includes('--omit=dev'));
    expect(productionInstall).toBeDefined();
    expect(productionInstall).toContain(`--workspace ${dir}`);
    expect(productionInstall).toContain('--include-workspace-root=false');
    for (const s of stages.filter((st) => all('RUN', st).some((r) => /npm ci\b/.test(r.args)))) {
      expect(all('COPY', s).some((c) => c.args.split(/\s+/).includes('package-lock.json'))).toBe(true);
    }
    // Nothing from the build stage's node_modules reaches the final image.
    const fromBuild = all('COPY', final).filter((c) => c.args.startsWith('--from=build'));
    expect(fromBuild.filter((c) => /node_modules/.test(c.args))).toEqual([]);
    const depsStage = stages.find((s) => all('RUN', s).some((r) => r.args === productionInstall))!;
    expect(all('COPY', final).some((c) => c.args.startsWith(`--from=${depsStage.name}`))).toBe(true);
    if (existsSync(path.join(ROOT, dir, 'prisma', 'schema.prisma'))) {
      // The generated Prisma client is compiled into dist/ by the build stage, which alone needs
      // the Prisma CLI: a development dependency, so the production install leaves it out.
      expect(all('RUN').some((r) => r.args.includes('prisma-generate'))).toBe(true);
      const manifest = JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
      expect({ dependency: manifest.dependencies?.prisma, devDependency: typeof manifest.devDependencies?.prisma }).toEqual({ dependency: undefined, devDependency: 'string' });
    }
  });

  test('runs as a non-root numeric user, has a HEALTHCHECK, and node is PID 1 (exec form, no npm or shell)', () => {
    const user = all('USER', final).at(-1)?.args ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    const health = all('HEALTHCHECK', final).at(-1)?.args ?? '';
    expect(health).toMatch(/CMD \[/);
    expect(all('ENTRYPOINT', final)).toEqual([]);
    const cmd = JSON.parse(all('CMD', final).at(-1)!.args) as string[];
    expect(cmd).toEqual(['node', 'dist/main.js']);
    expect(all('WORKDIR', final).at(-1)?.args).toBe(`/app/${dir}`);
    expect(existsSync(path.join(ROOT, dir, 'src', 'main.ts'))).toBe(true);
  });

  test('copies every file the service reads at run time next to dist/', () => {
    const sources = all('COPY', final).flatMap((c) => c.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1));
    for (const wanted of runtimeFiles(svc)) {
      expect({ wanted, copied: sources.some((s) => covers(s, wanted)) }).toEqual({ wanted, copied: true });
      expect(existsSync(path.join(ROOT, wanted))).toBe(true);
    }
    expect(sources.some((s) => covers(s, `${dir}/dist`))).toBe(true);
  });

  test('no secrets baked in: no ENV or ARG that names a credential', () => {
    const declared = [...all('ENV'), ...all('ARG')].map((i) => i.args.split(/[=\s]/)[0]!);
    expect(declared.filter((name) => isSecretVariable(name) || /SECRET|TOKEN|PASSWORD/.test(name))).toEqual([]);
  });

  if (existsSync(path.join(ROOT, dir, 'migrations'))) {
    test('the migration entry point is a second command of the same image, used by its Kubernetes Job', () => {
      expect(existsSync(path.join(ROOT, dir, 'src', 'migrate.ts'))).toBe(true);
      for (const overlay of ['dev', 'prod'] as const) {
        const job = ofKind(render(overlay), 'Job').find((j) => j.metadata.name === `${svc}-migrate`)!;
        expect(job.spec.template.spec.containers[0].command).toEqual(['node', 'dist/migrate.js']);
      }
    });
  }
});

describe('.dockerignore', () => {
  const patterns = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const toRegExp = (p: string) =>
    new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '(.*/)?')}(/.*)?$`);
  const ignored = (file: string) => patterns.some((p) => toRegExp(p).test(file));

  test('keeps out what must never enter an image or bust the cache', () => {
    for (const file of ['node_modules/x', 'services/orders/node_modules/x', 'services/orders/dist/main.js', '.git/HEAD', '.env', 'services/orders/.env', 'services/orders/src/generated/prisma/client.ts', 'services/orders/test/x.int.spec.ts', 'services/orders/src/domain/rules.spec.ts']) {
      expect({ file, ignored: ignored(file) }).toEqual({ file, ignored: true });
    }
  });

  test('lets in everything the Dockerfiles copy from the context', () => {
    const needed = ['package.json', 'package-lock.json', 'tsconfig.base.json', 'tsconfig.build.json', 'scripts/prisma-generate.mjs', 'deploy/docker/healthcheck.js', 'libs/platform/src/config.ts'];
    for (const svc of SERVICES) needed.push(`${SERVICE_DIRS[svc]}/package.json`, `${SERVICE_DIRS[svc]}/tsconfig.json`, `${SERVICE_DIRS[svc]}/src/main.ts`, ...runtimeFiles(svc));
    for (const svc of SERVICES) if (existsSync(path.join(ROOT, SERVICE_DIRS[svc]!, 'prisma'))) needed.push(`${SERVICE_DIRS[svc]}/prisma/schema.prisma`);
    expect(needed.filter(ignored)).toEqual([]);
  });
});
