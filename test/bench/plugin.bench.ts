// What one `kubectl stepwise` command costs a person (and make test, which runs hundreds): the
// single-file binary's CPU time (user + system) and wall time per command against the shared
// cluster, beside `kubectl get` of the same Rollouts with the same kubeconfig. `version` is the
// floor: starting the binary, no cluster. Read-only commands, so every sample sees the same state.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  clientFor,
  createNamespace,
  installCrds,
  ROLLOUTS,
  rollout,
} from './controller-support.ts';
import { formatStats, machine, stats, type Benchmark, type Stats } from './harness.ts';

const NS = 'bench-plugin';
const SAMPLES = Number(process.env['BENCH_PLUGIN_SAMPLES'] ?? 15);
/** BENCH_PLUGIN: another build of the binary, to compare (an older commit's, say). */
const PLUGIN = resolve(process.env['BENCH_PLUGIN'] ?? '.stepwise/bin/sea/kubectl-stepwise');

interface Sample {
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** Runs `argv` under bash and reads its children's CPU time from `times` (no /usr/bin/time
 *  needed); the command's own output is discarded, its failure is an error. */
function measure(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  const quoted = argv.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  // The subshell's children are waited for, so `times` counts them too.
  const script = `err=$( { ${quoted} >/dev/null; } 2>&1 ) || { echo "$err" >&2; exit 1; }; times`;
  return new Promise((done, fail) => {
    const started = performance.now();
    const child = spawn('bash', ['-c', script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', fail);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return fail(new Error(`${argv.join(' ')} failed: ${err.trim()}`));
      // `times`: the shell's own user/system, then its children's: "0m0.123s 0m0.045s".
      const children = out.trim().split('\n').at(-1) ?? '';
      const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(
        (m) => Number(m[1]) * 60 + Number(m[2]),
      );
      if (seconds.length !== 2) return fail(new Error(`unexpected \`times\` output: ${out}`));
      done({ cpuMs: (seconds[0]! + seconds[1]!) * 1000, wallMs });
    });
  });
}

const benchmark: Benchmark = {
  name: 'plugin',
  description: `kubectl stepwise: CPU and wall time per command (single-file binary), beside kubectl get, ${SAMPLES} samples each`,
  async run(ctx) {
    if (!existsSync(PLUGIN)) throw new Error(`${PLUGIN} is missing: run make plugin-binary`);
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    await installCrds(http);
    await createNamespace(http, NS);
    for (const name of ['web', 'api', 'worker']) {
      await http.json('POST', `${ROLLOUTS}/namespaces/${NS}/rollouts`, rollout(name));
    }
    const env = { ...process.env, KUBECONFIG: cluster.kubeconfigPath, HOME: '/nonexistent' };
    const kubectl = join(ctx.binDir, 'kubectl');
    const commands: Record<string, readonly string[]> = {
      'version (no cluster)': [PLUGIN, 'version'],
      list: [PLUGIN, 'list', '-n', NS],
      'get rollout': [PLUGIN, 'get', 'rollout', 'web', '-n', NS],
      'kubectl get rollouts': [kubectl, 'get', 'rollouts.stepwise.dev', '-n', NS],
    };
    const cpu: Record<string, Stats> = {};
    const wall: Record<string, Stats> = {};
    for (const [label, argv] of Object.entries(commands)) {
      ctx.log(`  ${label}: ${SAMPLES} runs`);
      await measure(argv, env); // the page cache warm, as for a person's second command
      const samples: Sample[] = [];
      for (let i = 0; i < SAMPLES; i++) samples.push(await measure(argv, env));
      cpu[label] = stats(samples.map((s) => s.cpuMs));
      wall[label] = stats(samples.map((s) => s.wallMs));
    }
    const ratio = (label: string): string =>
      `${(cpu[label]!.p50 / cpu['kubectl get rollouts']!.p50).toFixed(2)}× kubectl get's CPU`;
    return {
      summary: [
        ...Object.keys(commands).flatMap((label) => [
          formatStats(`${label}: CPU`, cpu[label]!),
          formatStats(`${label}: wall`, wall[label]!),
        ]),
        `list: ${ratio('list')}; get rollout: ${ratio('get rollout')}`,
      ],
      data: { machine: machine(), samples: SAMPLES, cpuMs: cpu, wallMs: wall },
    };
  },
};

export default benchmark;
