// A real Kubernetes control plane on loopback for tests and benchmarks: etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler and kwok (simulated nodes whose pods become Ready),
// built from Kubernetes' own Go modules by build.sh. Start order: etcd, then the apiserver, then
// everything that talks to it in parallel; ready means nodes Ready and a default service account.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingBinaries, resolveBinDir } from './binaries.ts';
import { componentArgs, type ComponentName, type Layout } from './components.ts';
import { readCredentials, writeKubeconfig } from './kubeconfig.ts';
import { KubeHttp } from './kube-http.ts';
import { writeKwokConfig } from './kwok-stages.ts';
import { track } from './lifecycle.ts';
import { DATA_DIR_PREFIX, reapOrphans, writeOwnerRecord } from './orphans.ts';
import { createPki } from './pki.ts';
import { pollUntil } from './poll.ts';
import { freeLoopbackPorts } from './ports.ts';
import { ComponentProcess, tailFile } from './process.ts';
import * as ready from './readiness.ts';
import { createNodes } from './nodes.ts';

export interface ClusterOptions {
  /** Directory with the binaries; default: STEPWISE_K8S_ASSETS, else build.sh's output. */
  readonly binDir?: string;
  /** Simulated nodes (kwok), untainted. Default 3. */
  readonly nodes?: number;
  /** Progress lines; default: `[cluster] ...` on stderr. */
  readonly log?: (line: string) => void;
  /** Stop the cluster, then exit, on SIGINT/SIGTERM/SIGHUP. Default true. */
  readonly handleSignals?: boolean;
  /** Budget for each readiness wait. Default 90 s (slow, contended CI machines). */
  readonly timeoutMs?: number;
  /** Where the temporary data dir goes. Default: the OS temp dir. */
  readonly parentDir?: string;
  /** Aborting it makes a start in progress fail (and clean up) at the next wait. */
  readonly signal?: AbortSignal;
  /** Extra command-line flags per component (tests use this to provoke a failed start). */
  readonly extraArgs?: Partial<Record<ComponentName, readonly string[]>>;
}

export interface Cluster {
  readonly kubeconfigPath: string;
  /** https://127.0.0.1:PORT */
  readonly server: string;
  readonly binDir: string;
  readonly dataDir: string;
  readonly processes: readonly { readonly name: ComponentName; readonly pid: number }[];
  /** Milliseconds from the start call until each milestone. */
  readonly timings: Readonly<Record<string, number>>;
  /**
   * Kills kube-apiserver alone (SIGKILL: a crash, the outage starts at once; SIGTERM would keep
   * it serving through its graceful shutdown), leaving etcd and the rest running: for API-outage
   * tests. `startApiserver` brings it back on the same port with the
   * same etcd and certificates, and resolves once /readyz answers.
   */
  stopApiserver(): Promise<void>;
  startApiserver(): Promise<void>;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 5_000;
const PORT_NAMES = [
  'etcdClient',
  'etcdPeer',
  'apiserver',
  'controllerManager',
  'scheduler',
] as const;

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`[cluster] ${line}\n`));
  const started = performance.now();
  const binDir = opts.binDir ?? (await resolveBinDir());
  const missing = missingBinaries(binDir);
  if (missing.length > 0) {
    throw new Error(`${binDir} lacks ${missing.join(', ')}; run test/cluster/build.sh`);
  }
  const parent = opts.parentDir ?? tmpdir();
  for (const dir of reapOrphans(parent)) log(`removed a cluster left by a dead process: ${dir}`);
  const dataDir = await mkdtemp(join(parent, DATA_DIR_PREFIX));
  const plane = new ControlPlane(binDir, dataDir, started, log, opts);
  try {
    await plane.start();
    return plane;
  } catch (err) {
    await plane.stop();
    throw err;
  }
}

class ControlPlane implements Cluster {
  readonly binDir: string;
  readonly dataDir: string;
  readonly kubeconfigPath: string;
  server = '';
  readonly timings: Record<string, number> = {};
  readonly #started: number;
  readonly #log: (line: string) => void;
  readonly #opts: ClusterOptions;
  readonly #procs: ComponentProcess[] = [];
  readonly #untrack: () => void;
  #api: KubeHttp | undefined;
  #layout: Layout | undefined;
  #stopping: Promise<void> | undefined;

  constructor(
    binDir: string,
    dataDir: string,
    started: number,
    log: (l: string) => void,
    opts: ClusterOptions,
  ) {
    this.binDir = binDir;
    this.dataDir = dataDir;
    this.kubeconfigPath = join(dataDir, 'admin.kubeconfig');
    this.#started = started;
    this.#log = log;
    this.#opts = opts;
    writeOwnerRecord(dataDir, []);
    this.#untrack = track(this, opts.handleSignals ?? true);
  }

  get processes() {
    return this.#procs.map((p) => ({ name: p.name as ComponentName, pid: p.pid }));
  }

  async start(): Promise<void> {
    const d = this.dataDir;
    const [pki, ports] = await Promise.all([
      createPki(join(d, 'pki')),
      freeLoopbackPorts(PORT_NAMES),
    ]);
    this.server = `https://127.0.0.1:${ports.apiserver}`;
    const kubeconfigs = {
      admin: this.kubeconfigPath,
      controllerManager: join(d, 'kube-controller-manager.kubeconfig'),
      scheduler: join(d, 'kube-scheduler.kubeconfig'),
    };
    const layout: Layout = {
      dataDir: d,
      pki,
      ports,
      kubeconfigs,
      kwokConfig: join(d, 'kwok.yaml'),
    };
    this.#layout = layout;
    await Promise.all([
      writeKubeconfig(kubeconfigs.admin, this.server, pki.caFile, pki.admin),
      writeKubeconfig(
        kubeconfigs.controllerManager,
        this.server,
        pki.caFile,
        pki.controllerManager,
      ),
      writeKubeconfig(kubeconfigs.scheduler, this.server, pki.caFile, pki.scheduler),
      writeKwokConfig(layout.kwokConfig, this.binDir),
      mkdir(join(d, 'logs')),
      mkdir(join(d, 'kwok-home')),
    ]);
    this.#mark('pki');

    this.#spawn('etcd', layout);
    await this.#waitFor('etcd', 'etcd /health', () => ready.etcdHealthy(ports.etcdClient));

    this.#spawn('kube-apiserver', layout);
    const api = (this.#api = new KubeHttp(readCredentials(this.kubeconfigPath)));
    await this.#waitFor('kube-apiserver', 'kube-apiserver /readyz', () =>
      ready.apiserverReady(api),
    );

    this.#log('starting kube-controller-manager, kube-scheduler, kwok...');
    this.#spawn('kube-controller-manager', layout, false);
    this.#spawn('kube-scheduler', layout, false);
    // kwok reads ~/.kwok/kwok.yaml when it exists: give it a HOME of its own.
    this.#spawn('kwok', layout, false, { ...process.env, HOME: join(d, 'kwok-home') });
    const nodeNames = await createNodes(api, this.#opts.nodes ?? 3);
    await Promise.all([
      this.#waitFor('kube-controller-manager', 'kube-controller-manager /healthz', () =>
        ready.secureHealthz(ports.controllerManager),
      ),
      this.#waitFor('kube-scheduler', 'kube-scheduler /healthz', () =>
        ready.secureHealthz(ports.scheduler),
      ),
      this.#waitFor('kwok', `${nodeNames.length} Ready nodes`, () =>
        ready.nodesReady(api, nodeNames),
      ),
      this.#waitFor('kube-controller-manager', 'serviceaccount default/default', () =>
        ready.defaultServiceAccountExists(api),
      ),
    ]);
    this.#log(`ready in ${(this.#mark('ready') / 1000).toFixed(1)}s (${this.server})`);
  }

  async stopApiserver(): Promise<void> {
    const apiserver = this.#procs.find((p) => p.name === 'kube-apiserver' && !p.exitInfo);
    if (!apiserver) throw new Error('kube-apiserver is not running');
    apiserver.killNow();
    await apiserver.exited;
    this.#procs.splice(this.#procs.indexOf(apiserver), 1);
    writeOwnerRecord(
      this.dataDir,
      this.#procs.map((p) => p.pid),
    );
  }

  async startApiserver(): Promise<void> {
    if (!this.#layout || !this.#api) throw new Error('the cluster was never started');
    if (this.#procs.some((p) => p.name === 'kube-apiserver')) {
      throw new Error('kube-apiserver is already running');
    }
    const api = this.#api;
    this.#spawn('kube-apiserver', this.#layout);
    await this.#waitFor('kube-apiserver', 'kube-apiserver /readyz', () =>
      ready.apiserverReady(api),
    );
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stopAll();
    return this.#stopping;
  }

  destroyNow(): void {
    this.#procs.forEach((p) => p.killNow());
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  async #stopAll(): Promise<void> {
    this.#api?.close();
    // Clients of etcd first, so nothing logs a storm of connection errors on the way down.
    const etcd = this.#procs.filter((p) => p.name === 'etcd');
    await Promise.all(
      this.#procs.filter((p) => p.name !== 'etcd').map((p) => p.stop(STOP_GRACE_MS)),
    );
    await Promise.all(etcd.map((p) => p.stop(STOP_GRACE_MS)));
    await rm(this.dataDir, { recursive: true, force: true });
    this.#untrack();
  }

  #spawn(name: ComponentName, layout: Layout, announce = true, env?: NodeJS.ProcessEnv): void {
    this.#opts.signal?.throwIfAborted();
    if (announce) this.#log(`starting ${name}...`);
    const extra = this.#opts.extraArgs?.[name] ?? [];
    this.#procs.push(
      new ComponentProcess({
        name,
        bin: join(this.binDir, name),
        args: [...componentArgs(name, layout), ...extra],
        logFile: join(this.dataDir, 'logs', `${name}.log`),
        ...(env ? { env } : {}),
      }),
    );
    writeOwnerRecord(
      this.dataDir,
      this.#procs.map((p) => p.pid),
    );
  }

  async #waitFor(owner: ComponentName, what: string, probe: () => Promise<boolean>): Promise<void> {
    try {
      await pollUntil(what, async () => ((await probe()) ? true : undefined), {
        timeoutMs: this.#opts.timeoutMs ?? 90_000,
        abortIf: () =>
          this.#opts.signal?.aborted
            ? new Error('cluster start aborted')
            : this.#procs.map((p) => p.failure()).find((e) => e !== undefined),
      });
    } catch (err) {
      if (this.#opts.signal?.aborted) throw err; // asked to stop: no component is at fault
      const culprit =
        this.#procs.find((p) => p.failure()) ?? this.#procs.find((p) => p.name === owner);
      if (culprit) {
        this.#log(`${culprit.name} did not come up; last lines of ${culprit.logFile}:`);
        this.#log(tailFile(culprit.logFile, 30).replaceAll('\n', '\n    '));
      }
      throw err;
    }
    this.#log(`${what} ok (${(this.#mark(what) / 1000).toFixed(1)}s)`);
  }

  #mark(milestone: string): number {
    const ms = Math.round(performance.now() - this.#started);
    this.timings[milestone] = ms;
    return ms;
  }
}
