// A real Prometheus on loopback for tests, the demo and benches: built by build.sh into the
// cache, started with a static scrape configuration (or on a backfilled TSDB), ready when
// /-/ready answers, stopped with SIGTERM (SIGKILL after 5 s), its data dir removed, and killed
// with its owner whatever way the owner exits.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '../cluster/poll.ts';
import { freeLoopbackPorts } from '../cluster/ports.ts';
import { ComponentProcess, tailFile } from '../cluster/process.ts';

const HERE = import.meta.dirname;
const STOP_GRACE_MS = 5_000;

export interface ScrapeTarget {
  readonly job: string;
  /** host:port on 127.0.0.1 */
  readonly target: string;
  readonly metricsPath?: string;
}

export interface PrometheusOptions {
  readonly scrapeTargets?: readonly ScrapeTarget[];
  readonly scrapeIntervalSeconds?: number;
  /** A TSDB to serve (e.g. backfilled with promtool); kept on stop. Default: a fresh temp dir. */
  readonly dataDir?: string;
  readonly log?: (line: string) => void;
}

export interface RunningPrometheus {
  /** http://127.0.0.1:PORT */
  readonly url: string;
  readonly dataDir: string;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The directory holding `prometheus` and `promtool`, built by build.sh on first use. */
export function prometheusBinDir(log: (line: string) => void = () => undefined): string {
  const given = process.env.STEPWISE_PROMETHEUS_BIN;
  if (given && existsSync(join(given, 'prometheus'))) return given;
  log('[prometheus] making sure prometheus and promtool are built (test/prometheus/build.sh)');
  const out = execFileSync('bash', [join(HERE, 'build.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').at(-1) ?? '';
}

export function configYaml(targets: readonly ScrapeTarget[], intervalSeconds: number): string {
  const jobs = targets.map(
    (t) =>
      `  - job_name: ${JSON.stringify(t.job)}\n` +
      `    metrics_path: ${JSON.stringify(t.metricsPath ?? '/metrics')}\n` +
      `    static_configs:\n      - targets: [${JSON.stringify(t.target)}]\n`,
  );
  return (
    `global:\n  scrape_interval: ${intervalSeconds}s\n  evaluation_interval: ${intervalSeconds}s\n` +
    `scrape_configs:\n${jobs.join('') || '  []\n'}`
  );
}

export async function startPrometheus(opts: PrometheusOptions = {}): Promise<RunningPrometheus> {
  const log = opts.log ?? (() => undefined);
  const binDir = prometheusBinDir(log);
  const workDir = mkdtempSync(join(tmpdir(), 'stepwise-prometheus-'));
  const dataDir = opts.dataDir ?? join(workDir, 'data');
  const configFile = join(workDir, 'prometheus.yml');
  const scrape = configYaml(opts.scrapeTargets ?? [], opts.scrapeIntervalSeconds ?? 1);
  writeFileSync(configFile, scrape.replace('scrape_configs:\n  []\n', 'scrape_configs: []\n'));
  const { web } = await freeLoopbackPorts(['web']);
  const proc = new ComponentProcess({
    name: 'prometheus',
    bin: join(binDir, 'prometheus'),
    args: [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${dataDir}`,
      `--web.listen-address=127.0.0.1:${web}`,
      '--web.enable-lifecycle',
      '--log.level=warn',
      // Backfilled blocks may be older than the default 15 d retention window would keep.
      '--storage.tsdb.retention.time=90d',
    ],
    logFile: join(workDir, 'prometheus.log'),
  });
  const killOnExit = (): void => proc.killNow();
  process.once('exit', killOnExit);
  const url = `http://127.0.0.1:${web}`;
  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    await proc.stop(STOP_GRACE_MS);
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    await pollUntil(
      'prometheus /-/ready',
      async () => ((await fetch(`${url}/-/ready`)).ok ? true : undefined),
      { timeoutMs: 30_000, abortIf: () => proc.failure() },
    );
  } catch (err) {
    const tail = tailFile(proc.logFile);
    await stop();
    throw new Error(`${(err as Error).message}\n--- prometheus log ---\n${tail}`, { cause: err });
  }
  // Prometheus hands new targets to its scrapers at most every 5 s: wait until each has been
  // scraped once, so tests do not race the first scrape.
  const jobs = new Set((opts.scrapeTargets ?? []).map((t) => t.job));
  if (jobs.size > 0) {
    await pollUntil(
      `first scrape of ${[...jobs].join(', ')}`,
      async () => {
        const body = (await (await fetch(`${url}/api/v1/targets?state=active`)).json()) as {
          data?: { activeTargets?: { labels?: { job?: string }; health?: string }[] };
        };
        const up = new Set(
          (body.data?.activeTargets ?? [])
            .filter((t) => t.health === 'up')
            .map((t) => t.labels?.job),
        );
        return [...jobs].every((j) => up.has(j)) ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200, abortIf: () => proc.failure() },
    ).catch(async (err: unknown) => {
      await stop();
      throw err;
    });
  }
  log(`[prometheus] ready at ${url} (pid ${proc.pid})`);
  return { url, dataDir, pid: proc.pid, stop };
}

/** `promtool tsdb create-blocks-from openmetrics FILE DIR`: recorded series into a TSDB. */
export function backfill(openMetricsFile: string, dataDir: string): void {
  const promtool = join(prometheusBinDir(), 'promtool');
  execFileSync(promtool, ['tsdb', 'create-blocks-from', 'openmetrics', openMetricsFile, dataDir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
}
