// make bench: runs the benchmarks in test/bench/ (control-plane first: later ones compare
// themselves with its API server floor, then the others by file name, bluegreen last: it
// compares itself with the controller bench's canary figures), or only those named on
// the command line; the opt-in ones (scale: 10,000 Rollouts, `make bench-scale`) only when named,
// and last, since they leave the shared cluster full. Figures are printed and written to .stepwise/bench/<name>.json.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { resolveBinDir } from '../cluster/binaries.ts';
import { startCluster, type Cluster } from '../cluster/cluster.ts';
import { STATE_DIR } from '../cluster/state.ts';
import type { BenchContext, Benchmark } from './harness.ts';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const OUT_DIR = join(STATE_DIR, 'bench');
const FIRST = 'control-plane.bench.ts';
/** After the others: they compare themselves with the controller bench's canary of the run. */
const LAST = ['bluegreen.bench.ts'];
/** Too long for `make bench` on 2 cores. */
const OPT_IN = ['scale.bench.ts'];

async function benchmarkFiles(only: readonly string[]): Promise<string[]> {
  const files = (await readdir(BENCH_DIR)).filter((f) => f.endsWith('.bench.ts')).sort();
  const ordered = [
    ...files.filter((f) => f === FIRST),
    ...files.filter((f) => f !== FIRST && !LAST.includes(f) && !OPT_IN.includes(f)),
    ...files.filter((f) => LAST.includes(f)),
    ...files.filter((f) => OPT_IN.includes(f)),
  ];
  if (only.length === 0) return ordered.filter((f) => !OPT_IN.includes(f));
  const picked = ordered.filter((f) => only.includes(f.replace(/\.bench\.ts$/, '')));
  if (picked.length !== only.length) {
    throw new Error(`unknown benchmark in ${only.join(', ')}; have: ${ordered.join(', ')}`);
  }
  return picked;
}

async function main(only: readonly string[]): Promise<void> {
  const say = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const binDir = await resolveBinDir();
  await mkdir(OUT_DIR, { recursive: true });
  let shared: Promise<Cluster> | undefined;
  let own: Promise<Cluster> | undefined;
  const ctx: BenchContext = {
    binDir,
    cluster: () => (shared ??= startCluster({ binDir, log: (l) => say(`cluster: ${l}`) })),
    ownCluster: () => (own ??= startCluster({ binDir, log: (l) => say(`own cluster: ${l}`) })),
    previous: async (name) => {
      try {
        return JSON.parse(await readFile(join(OUT_DIR, `${name}.json`), 'utf8')) as unknown;
      } catch {
        return undefined;
      }
    },
    log: say,
  };
  try {
    for (const file of await benchmarkFiles(only)) {
      const bench = (
        (await import(pathToFileURL(join(BENCH_DIR, file)).href)) as { default: Benchmark }
      ).default;
      say(`${bench.name}: ${bench.description}`);
      const started = performance.now();
      const result = await bench.run(ctx).finally(async () => {
        if (own) await (await own).stop();
        own = undefined;
      });
      const out = join(OUT_DIR, `${bench.name}.json`);
      await writeFile(out, JSON.stringify(result.data, null, 2) + '\n');
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      process.stdout.write(`\n== ${bench.name} (${seconds}s; ${out})\n`);
      process.stdout.write(result.summary.map((l) => `  ${l}\n`).join('') + '\n');
    }
  } finally {
    if (shared) await (await shared).stop();
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(
    `[bench] ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
