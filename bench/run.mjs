#!/usr/bin/env node
// The benchmark runner: `npm run bench` runs every benchmark, `npm run bench -- edge` one of them.
// Each benchmark is a module in bench/benchmarks/ exporting `name`, `description` and
// `run(ctx)`; it prints its tables and returns its figures, which are written to
// bench/results/<name>-<timestamp>.json (git-ignored) together with the machine's facts.
//
// Options:
//   --no-build   skip `npm run build` (the services run from their compiled dist/)
//   --quick      short windows, to check the harness (figures not meaningful, targets not judged)
//   --profile    run the services with --cpu-prof and print where their CPU time went
//   --list       list the benchmarks
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BenchContext, machineFacts } from './lib/context.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const benchmarksDir = path.join(root, 'bench', 'benchmarks');

function parseArgs(argv) {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const known = new Set(['--no-build', '--quick', '--profile', '--list', '--help']);
  for (const f of flags) if (!known.has(f)) throw new Error(`unknown option ${f}`);
  return {
    names: argv.filter((a) => !a.startsWith('--')),
    build: !flags.has('--no-build'),
    list: flags.has('--list') || flags.has('--help'),
    options: { quick: flags.has('--quick'), profile: flags.has('--profile') },
  };
}

async function loadBenchmarks() {
  const files = readdirSync(benchmarksDir).filter((f) => f.endsWith('.mjs')).sort();
  const modules = [];
  for (const f of files) {
    const mod = await import(pathToFileURL(path.join(benchmarksDir, f)).href);
    if (typeof mod.run !== 'function' || typeof mod.name !== 'string') throw new Error(`bench/benchmarks/${f} exports no name and run()`);
    modules.push(mod);
  }
  return modules;
}

function timestamp() {
  return new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

let current = null;
let interrupted = false;

async function onSignal(signal) {
  if (interrupted) return;
  interrupted = true;
  process.stdout.write(`\n${signal}: stopping every process of the run and cleaning up\n`);
  await current?.cleanup();
  process.exit(130);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const all = await loadBenchmarks();
  if (args.list) {
    for (const b of all) console.log(`${b.name.padEnd(12)} ${b.description ?? ''}`);
    console.log('\nnpm run bench [-- <name>...] [--no-build] [--quick] [--profile]');
    return 0;
  }
  const unknown = args.names.filter((n) => !all.some((b) => b.name === n));
  if (unknown.length) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${all.map((b) => b.name).join(', ')}`);
  const selected = args.names.length ? all.filter((b) => args.names.includes(b.name)) : all;

  if (args.build) {
    console.log('npm run build');
    const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) throw new Error('npm run build failed');
  }

  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });

  let failures = 0;
  for (const bench of selected) {
    const startedAt = new Date();
    const ctx = new BenchContext({ name: bench.name, root, options: args.options, timestamp: timestamp() });
    current = ctx;
    const machine = machineFacts(root);
    ctx.log(`${bench.description ?? ''} — ${machine.cpu}, ${machine.cores} cores, node ${machine.node}, load ${machine.loadAverage1m.toFixed(2)}`);
    try {
      const result = await bench.run(ctx);
      const file = path.join(ctx.resultsDir, `${bench.name}-${ctx.timestamp}.json`);
      const record = { benchmark: bench.name, startedAt: startedAt.toISOString(), finishedAt: new Date().toISOString(), machine, options: args.options, ...result };
      writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
      ctx.log(`result written to ${path.relative(root, file)}; logs in ${path.relative(root, ctx.runDir)}/`);
      if (result.targetsMet === false) ctx.log('a target was missed (see the table above)');
    } catch (err) {
      failures++;
      ctx.log(`FAILED: ${err.stack ?? err}`);
      ctx.log(`logs in ${path.relative(root, ctx.runDir)}/`);
    } finally {
      await ctx.cleanup();
      current = null;
    }
    if (interrupted) break;
  }
  return failures ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err.message ?? err);
    process.exit(1);
  },
);
