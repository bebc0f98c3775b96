/**
 * Runs the real controller (`src/controller/main.ts`) as a child process against the harness's
 * cluster, as `make run` would (or another way, through a launcher), and lets tests wait for what
 * it logs.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { LEASE_NAME } from '../../../src/api/index.ts';
import { REPO_ROOT } from '../../cluster/state.ts';
import { instanceIdOf, instanceIdToAdd } from './isolation.ts';

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/**
 * `dist`: the production path, the bundle `make build` writes and the image runs; `modules`: the
 * same compiled code as separate ES modules (tsc's dist/, unbundled); `source`: the TypeScript
 * through Node's type stripping. The benchmarks weigh them against each other.
 */
export type ControllerEntry = 'dist' | 'modules' | 'source';

export const ENTRY_PATHS: Readonly<Record<ControllerEntry, string>> = {
  dist: 'dist/bundle/controller.mjs',
  modules: 'dist/controller/main.js',
  source: 'src/controller/main.ts',
};

export interface ControllerOptions {
  /** Extra flags, e.g. `--leader-elect=true`. Leader election is off unless given. */
  readonly args?: readonly string[];
  readonly identity?: string;
  /** Overrides of the environment (KUBECONFIG of a ServiceAccount, POD_NAMESPACE). */
  readonly env?: NodeJS.ProcessEnv;
  /** How the controller's code is loaded; default: the sources, or under `make e2e` the bundle
   *  it built from them (defaultScript). */
  readonly entry?: ControllerEntry;
  /** Node/V8 flags before the script (benchmarks compare them). */
  readonly nodeFlags?: readonly string[];
  /** How to start it; default: `node src/controller/main.ts` as a child process. */
  readonly launcher?: ControllerLauncher;
  /**
   * `--instance-id` to run with. Default: none, except under `make e2e`, where a controller that
   * `args` neither give an instance id nor confine to a namespace gets its test file's own
   * (support/isolation.ts), so that files running side by side leave each other's Rollouts alone.
   */
  readonly instanceId?: string;
}

/** Another way to run the controller (its image under an OCI runtime, say). */
export interface ControllerLauncher {
  /** Starts the controller with these flags; its stdout and stderr must be pipes. */
  start(flags: readonly string[]): ChildProcess;
  /** Delivers a signal to the controller itself (default: to the child process). */
  signal?(signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Synchronous last resort when the test process exits (default: SIGKILL to the child). */
  killSync?(): void;
}

/**
 * Under `make e2e`, the bundle the image carries (STEPWISE_E2E_CONTROLLER, copied out by
 * `make image`): the code that ships, and a start from it costs a third of the CPU of one from
 * the sources; the run starts dozens. Run by hand, a file uses the sources.
 */
function defaultScript(): string[] {
  const bundle = process.env['STEPWISE_E2E_CONTROLLER'];
  return [bundle === undefined || bundle === '' ? join(REPO_ROOT, ENTRY_PATHS.source) : bundle];
}

/** Lets analysis reach servers on this machine's loopback (denied by default). */
export const LOOPBACK_ANALYSIS_ALLOWANCE = '--analysis-allowed-hosts=127.0.0.0/8,::1';

export class ControllerProcess {
  readonly logs: LogLine[] = [];
  readonly #child: ChildProcess;
  readonly #waiters: {
    match: (l: LogLine) => boolean;
    resolve: (l: LogLine) => void;
    fail: (err: Error) => void;
  }[] = [];
  /** Set once its output has ended: a line not seen by then never comes. */
  #ended: string | undefined;
  readonly #launcher: ControllerLauncher | undefined;
  readonly exited: Promise<number | null>;
  /** The `--instance-id` it runs with, given or added (see ControllerOptions.instanceId). */
  readonly instanceId: string | undefined;
  metricsPort = 0;

  constructor(opts: ControllerOptions = {}) {
    const args = opts.args ?? ['--leader-elect=false'];
    const given = [
      '--metrics-bind-address=127.0.0.1:0',
      '--log-level=debug',
      ...(opts.identity ? [`--identity=${opts.identity}`] : []),
      // The tests' analysis servers listen on loopback, which analysis may not reach by default;
      // a test that gives its own allowance (analysis-guard) keeps it.
      ...(args.some((a) => a.startsWith('--analysis-allowed-hosts'))
        ? []
        : [LOOPBACK_ANALYSIS_ALLOWANCE]),
      ...args,
    ];
    const added = instanceIdToAdd(given, opts.instanceId);
    const flags = added === undefined ? given : [...given, `--instance-id=${added}`];
    this.instanceId = instanceIdOf(flags);
    this.#launcher = opts.launcher;
    this.#child = this.#launcher
      ? this.#launcher.start(flags)
      : spawn(
          process.execPath,
          [
            '--disable-warning=ExperimentalWarning',
            ...(opts.nodeFlags ?? []),
            ...(opts.entry === undefined
              ? defaultScript()
              : [join(REPO_ROOT, ENTRY_PATHS[opts.entry])]),
            ...flags,
          ],
          { env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] },
        );
    this.exited = new Promise((resolve) => this.#child.once('exit', (code) => resolve(code)));
    // 'close' comes after the last of its output: waiting on longer is waiting on nothing.
    this.#child.once('close', (code, signal) => {
      this.#ended = `controller exited (${signal ?? `code ${code}`})`;
      for (const w of this.#waiters.splice(0)) w.fail(this.#notLogged(this.#ended));
    });
    for (const stream of [this.#child.stdout, this.#child.stderr]) {
      let buffered = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          this.#line(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
        }
      });
    }
    // Never outlive the test run, whatever the test does; once it has exited, nothing to do.
    const killAtExit = () =>
      this.#launcher?.killSync ? this.#launcher.killSync() : this.#child.kill('SIGKILL');
    process.once('exit', killAtExit);
    void this.exited.then(() => process.off('exit', killAtExit));
  }

  /** The name of the Lease it elects its leader on (in --lease-namespace), one per instance. */
  get leaseName(): string {
    return this.instanceId === undefined ? LEASE_NAME : `${LEASE_NAME}-${this.instanceId}`;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Resolves with the first log line (past or future) that matches; fails at the timeout or
   *  as soon as the controller has exited without logging it. */
  waitForLog(match: (l: LogLine) => boolean, timeoutMs = 30_000): Promise<LogLine> {
    const seen = this.logs.find(match);
    if (seen) return Promise.resolve(seen);
    if (this.#ended !== undefined) return Promise.reject(this.#notLogged(this.#ended));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(this.#notLogged(`in ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = {
        match,
        resolve: (l: LogLine) => {
          clearTimeout(timer);
          resolve(l);
        },
        fail: (err: Error) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.#waiters.push(waiter);
    });
  }

  #notLogged(why: string): Error {
    const last = this.logs.slice(-15).map((l) => JSON.stringify(l));
    return new Error(
      `controller did not log the expected line: ${why}; last lines:\n${last.join('\n')}`,
    );
  }

  /** Waits until the caches are synced and the metrics port is known. */
  async ready(): Promise<this> {
    const line = await this.waitForLog((l) => l.msg === 'internal server listening');
    this.metricsPort = Number(line.port);
    await this.waitForLog((l) => l.msg === 'caches synced');
    return this;
  }

  async metrics(): Promise<string> {
    const res = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`);
    return res.text();
  }

  /** SIGTERM: a graceful shutdown. Resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.#child.exitCode === null) this.#signal('SIGTERM');
    return this.exited;
  }

  /** SIGKILL: a crash. */
  async kill(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#signal('SIGKILL');
    await this.exited;
  }

  #signal(signal: 'SIGTERM' | 'SIGKILL'): void {
    if (this.#launcher?.signal) this.#launcher.signal(signal);
    else this.#child.kill(signal);
  }

  #line(text: string): void {
    if (text.trim() === '') return;
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { level: 'raw', msg: text };
    }
    this.logs.push(line);
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i];
      if (w?.match(line)) {
        this.#waiters.splice(i, 1);
        w.resolve(line);
      }
    }
  }
}

export async function startController(opts: ControllerOptions = {}): Promise<ControllerProcess> {
  return new ControllerProcess(opts).ready();
}
