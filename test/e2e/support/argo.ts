/**
 * Argo Rollouts' own controller beside the local control plane: the reference whose objects a
 * Stepwise takeover must keep. `rollouts-controller` is built from Argo's Go module by
 * test/cluster/argo/build.sh (once, into the cache), which also copies Argo's CRDs out of the
 * module zip; nothing of Argo's is in this repository.
 *
 * The controller runs as a local process with the harness's kubeconfig, confined to one namespace
 * (`--namespaced --namespace=NS`; POD_NAMESPACE=NS for the notification ConfigMap it looks up),
 * leader election off unless asked for (then its Lease is in NS). Its healthz and metrics servers listen on port 0 (the OS picks a free
 * one, so nothing clashes with other controllers); Argo binds them to 0.0.0.0, not loopback, and
 * the tests never connect to them (the idle-CPU bench picks a metrics port, to read Argo's
 * request counts).
 *
 * What Argo v1.9.2 writes, as recorded in test/fixtures/argo/ by test/e2e/argo-takeover.test.ts
 * (a canary of 4 replicas with setWeight 25 / pause {} / setWeight 50 / pause {} and canary and
 * stable Services, paused at its first pause; a canary Healthy on its second revision; a
 * blue-green of 3 paused before its switch):
 * - ReplicaSets: one per revision, named `<rollout>-<hash>`, `hash` Argo's pod-template hash (a
 *   Go FNV hash of the template; not to be re-implemented, the same template gives the same
 *   hash). The label `rollouts-pod-template-hash: <hash>` is on the ReplicaSet, in its
 *   `spec.selector.matchLabels` and on its template. Annotations `rollout.argoproj.io/revision`
 *   ("1", "2", ...) and `rollout.argoproj.io/desired-replicas` (the Rollout's spec.replicas).
 *   One ownerReference: `argoproj.io/v1alpha1` Rollout, `controller: true`,
 *   `blockOwnerDeletion: true`. Written by Update under the field manager
 *   `rollouts-controller`; an old canary ReplicaSet stays at `replicas: 0`, an old blue-green
 *   one at full size until the switch.
 * - Pods: the ReplicaSet's template labels (hash included), owned by the ReplicaSet only
 *   (kube-controller-manager creates them; Argo writes no pod of these strategies).
 * - Services: `spec.selector` gains `rollouts-pod-template-hash` (canary/preview the new hash,
 *   stable/active the stable one), and the annotation
 *   `argo-rollouts.argoproj.io/managed-by-rollouts: <rollout>`; nothing else of theirs changes.
 * - The Rollout itself: Argo writes its spec (`resources: {}` added to each container, so
 *   `metadata.generation` is 2 after a create and moves by 2 per template change) and the
 *   annotation `rollout.argoproj.io/revision` (the current revision).
 * - Rollout status: `phase` and `message` (`CanaryPauseStep`, `BlueGreenPause`), `stableRS`,
 *   `currentPodHash`, `currentStepIndex` and `currentStepHash` (canary only),
 *   `pauseConditions` ([{reason, startTime}]) with `controllerPause: true`, `blueGreen:
 *   {activeSelector, previewSelector}` (an empty `blueGreen: {}` and `canary: {}` otherwise;
 *   `canary.weights` only with a traffic router), `replicas`, `updatedReplicas`,
 *   `readyReplicas`, `availableReplicas`, `HPAReplicas`, `selector` (a string, e.g.
 *   `app=web`), `observedGeneration` (a string), and conditions Available, Completed,
 *   Healthy, Paused and Progressing (`RolloutPaused`, status Unknown, while paused).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { REPO_ROOT } from '../../cluster/state.ts';
import { http, waitFor } from './rollouts.ts';

/** Argo's API group and version, as its objects are stored. */
export const ARGO_API = '/apis/argoproj.io/v1alpha1';
/** The CRD files build.sh copies from the module's manifests/crds. */
export const ARGO_CRD_FILES = [
  'rollout-crd.yaml',
  'analysis-template-crd.yaml',
  'cluster-analysis-template-crd.yaml',
  'analysis-run-crd.yaml',
  'experiment-crd.yaml',
] as const;

const BUILD_SCRIPT = join(REPO_ROOT, 'test', 'cluster', 'argo', 'build.sh');
const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 5_000;

/**
 * The directory with `rollouts-controller` and `crds/`: STEPWISE_ARGO_DIR when it holds them,
 * else build.sh's (which builds on first use, its progress on our stderr, and is instant after).
 */
export function argoDir(): string {
  const given = process.env.STEPWISE_ARGO_DIR;
  if (given && existsSync(join(given, 'rollouts-controller'))) return given;
  const out = execFileSync('bash', [BUILD_SCRIPT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split('\n').at(-1) ?? '';
}

let crdsInstalled: Promise<void> | undefined;

/**
 * Server-side applies Argo's five CRDs (Rollout, AnalysisTemplate, ClusterAnalysisTemplate,
 * AnalysisRun, Experiment) and waits until each is Established. Server-side because each file
 * is 170-230 KB, beyond a client-side apply's last-applied annotation. Idempotent; once a file.
 */
export function installArgoCrds(): Promise<void> {
  crdsInstalled ??= applyCrds();
  crdsInstalled.catch(() => (crdsInstalled = undefined));
  return crdsInstalled;
}

async function applyCrds(): Promise<void> {
  const dir = join(argoDir(), 'crds');
  for (const file of ARGO_CRD_FILES) {
    const crd = load(readFileSync(join(dir, file), 'utf8')) as { metadata: { name: string } };
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    await http.json(
      'PATCH',
      `${path}/${crd.metadata.name}?fieldManager=stepwise-tests&force=true`,
      crd,
      'application/apply-patch+yaml',
    );
    await waitFor(
      `CRD ${crd.metadata.name} established`,
      path,
      crd.metadata.name,
      (o: { status?: { conditions?: { type: string; status: string }[] } }) =>
        o.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true,
    );
  }
}

/** One line of Argo's log (`--logformat=json`: logrus fields). */
export interface ArgoLogLine {
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export interface ArgoOptions {
  readonly leaderElect?: boolean;
  /** Its Prometheus metrics port (the idle-CPU bench reads its request counts); 0, the OS's
   *  pick and never read, by default. */
  readonly metricsPort?: number;
}

/** A running `rollouts-controller`, confined to one namespace. */
export class ArgoController {
  readonly namespace: string;
  readonly logs: ArgoLogLine[] = [];
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;
  readonly #waiters: { match: (l: ArgoLogLine) => boolean; resolve: () => void }[] = [];

  /** `leaderElect`: as Argo runs by default, holding its Lease `argo-rollouts-controller-lock`
   *  (in POD_NAMESPACE, here the test's namespace) while it runs; off otherwise. */
  constructor(namespace: string, opts: ArgoOptions = {}) {
    this.namespace = namespace;
    const kubeconfig = process.env.KUBECONFIG;
    if (!kubeconfig) throw new Error('KUBECONFIG is not set: run under `make e2e`');
    this.#child = spawn(
      join(argoDir(), 'rollouts-controller'),
      [
        `--kubeconfig=${kubeconfig}`,
        '--namespaced',
        `--namespace=${namespace}`,
        `--leader-elect=${opts.leaderElect === true}`,
        '--healthzPort=0',
        `--metricsPort=${opts.metricsPort ?? 0}`,
        '--logformat=json',
        '--loglevel=info',
      ],
      { env: { ...process.env, POD_NAMESPACE: namespace }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.exited = new Promise((resolve) => this.#child.once('exit', (code) => resolve(code)));
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
    // Never outlive the test process, whichever way it ends.
    const killAtExit = (): void => void this.#child.kill('SIGKILL');
    process.once('exit', killAtExit);
    void this.exited.then(() => process.off('exit', killAtExit));
  }

  /** The process id (its CPU time and memory are in /proc/<pid>/). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** Resolves once a line matching `match` was logged (before or after the call). */
  waitForLog(what: string, match: (l: ArgoLogLine) => boolean, timeoutMs = READY_TIMEOUT_MS) {
    if (this.logs.some(match)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`Argo: no ${what} in ${timeoutMs} ms; ${this.#tail()}`)),
        timeoutMs,
      );
      const gone = (code: number | null): void => {
        clearTimeout(timer);
        reject(new Error(`Argo exited (code ${code}) before ${what}; ${this.#tail()}`));
      };
      void this.exited.then(gone);
      this.#waiters.push({
        match,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** SIGTERM (Argo shuts its workers down), SIGKILL after a grace period; the exit code. */
  async stop(): Promise<number | null> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill('SIGTERM');
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), STOP_GRACE_MS);
      void this.exited.then(() => clearTimeout(timer));
    }
    return this.exited;
  }

  #tail(): string {
    return `last lines:\n${this.logs
      .slice(-15)
      .map((l) => JSON.stringify(l))
      .join('\n')}`;
  }

  #line(text: string): void {
    if (text.trim() === '') return;
    // STEPWISE_ARGO_LOG=FILE keeps Argo's whole log for a look after the run.
    const keep = process.env.STEPWISE_ARGO_LOG;
    if (keep) appendFileSync(keep, `${text}\n`);
    let line: ArgoLogLine;
    try {
      line = JSON.parse(text) as ArgoLogLine;
    } catch {
      line = { level: 'raw', msg: text };
    }
    this.logs.push(line);
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const w = this.#waiters[i];
      if (w?.match(line)) {
        this.#waiters.splice(i, 1);
        w.resolve();
      }
    }
  }
}

/**
 * Starts Argo's controller on `namespace` (its CRDs installed first) and resolves once its
 * caches are synced and its workers run (it logs "Started controller").
 */
export async function startArgo(namespace: string, opts?: ArgoOptions): Promise<ArgoController> {
  await installArgoCrds();
  const argo = new ArgoController(namespace, opts);
  try {
    await argo.waitForLog('"Started controller"', (l) => l.msg === 'Started controller');
  } catch (err) {
    await argo.stop();
    throw err;
  }
  return argo;
}
