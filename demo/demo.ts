/**
 * `make demo`: a narrated canary on the local control plane, with the plugin's real output.
 *
 * Runs under `test/cluster/cli.ts with`, so KUBECONFIG and PATH (kubectl) point at a loopback
 * cluster (etcd, kube-apiserver, controller-manager, scheduler, kwok nodes) that lives as long as
 * the demo, or at the one `make cluster-up` left running. `make plugin` has written
 * .stepwise/bin/kubectl-stepwise; the demo puts that directory on PATH for `kubectl stepwise`.
 *
 * The story, top to bottom: install the CRD and start the controller; a first deploy; a new image
 * that stops at 25% until promoted; the timed steps to Healthy; another image, aborted at its first
 * pause; the Events; then traffic routing, analysis, approvals and a blue-green update (one module
 * each). The machinery is in demo-kit.ts and demo-timeline.ts.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import type { CanaryStep } from '../src/api/index.ts';
import { startController } from '../test/e2e/support/controller.ts';
import {
  DemoError,
  bold,
  capture,
  elapsed,
  expect,
  failNow,
  onCleanup,
  run,
  runDemo,
  say,
  section,
  seconds,
  stopProcess,
  track,
  yellow,
  setRolloutImage,
} from './demo-kit.ts';
import { analysisAct, startMetrics } from './demo-analysis.ts';
import { approvalAct, startApprovalStage } from './demo-approval.ts';
import { blueGreenAct } from './demo-bluegreen.ts';
import { startDashboard } from './demo-dashboard.ts';
import { installGatewayApi, trafficAct } from './demo-traffic.ts';
import { Timeline, describeStep } from './demo-timeline.ts';

const ROOT = join(import.meta.dirname, '..');
const NS = 'demo';
const NAME = 'web';
const IMAGE = 'registry.example/web';
const LOG = join(ROOT, '.stepwise', 'demo-controller.log');
const PLUGIN_DIR = join(ROOT, '.stepwise', 'bin');
/** Our controller's name in the Events it records: another controller's Events are noticed. */
const IDENTITY = `stepwise-demo-${process.pid}`;
const started = Date.now();

process.env['PATH'] = `${PLUGIN_DIR}:${process.env['PATH'] ?? ''}`;

const kubectl = (...args: string[]): Promise<number> => run('kubectl', args);
const inDemo = (...args: string[]): Promise<number> => run('kubectl', ['-n', NS, ...args]);
const stepwise = (...args: string[]): Promise<number> =>
  run('kubectl', ['stepwise', '-n', NS, ...args]);
const rolloutField = (path: string): Promise<string> =>
  capture('kubectl', ['-n', NS, 'get', 'swro', NAME, '-o', `jsonpath={${path}}`]);

const setImage = (tag: string): Promise<number> => setRolloutImage(NS, NAME, `${IMAGE}:${tag}`);

const showServices = (): Promise<number> =>
  inDemo('get', 'svc', '-o', 'custom-columns=SERVICE:.metadata.name,SELECTOR:.spec.selector');
const showReplicaSetsAndPods = (): Promise<number> =>
  inDemo('get', 'rs,pods', '-L', 'role,rollouts-pod-template-hash');

/** Refuses to run anywhere but a loopback cluster; says whether it is `make cluster-up`'s. */
async function preflight(): Promise<{ sharedCluster: boolean }> {
  expect(
    existsSync(join(PLUGIN_DIR, 'kubectl-stepwise')),
    'kubectl-stepwise is not in .stepwise/bin: run the demo with `make demo` (it runs `make plugin`)',
  );
  const kubeconfig = process.env['KUBECONFIG'];
  expect(
    !!kubeconfig,
    'KUBECONFIG is not set: run the demo with `make demo`, which starts a local control plane for it',
  );
  const server = await capture('kubectl', [
    'config',
    'view',
    '--minify',
    '-o',
    'jsonpath={.clusters[0].cluster.server}',
  ]);
  expect(
    /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(server),
    `KUBECONFIG points at ${server || 'no server'}, not a local control plane; the demo deletes ` +
      `and creates things, so run it with \`make demo\``,
  );
  let sharedCluster = false;
  try {
    const state = JSON.parse(readFileSync(join(ROOT, '.stepwise', 'cluster.json'), 'utf8')) as {
      kubeconfigPath?: string;
    };
    sharedCluster = state.kubeconfigPath === kubeconfig;
  } catch {
    // no `make cluster-up` cluster: `with` started one for us
  }
  return { sharedCluster };
}

/** Whether LOG is this run's (and worth showing on a failure). */
let controllerStarted = false;
/** Set once the demo itself stops the controller: an exit before that ends the demo. */
let stoppingController = false;
const stopController = (child: ChildProcess): Promise<void> => {
  stoppingController = true;
  return stopProcess(child);
};

/** `node src/controller/main.ts FLAGS`, echoed as a command line, its log in LOG; warnings and
 *  errors (JSON lines on stderr) are shown as they happen. */
function launchController(flags: readonly string[]): ChildProcess {
  const args = ['--disable-warning=ExperimentalWarning', 'src/controller/main.ts', ...flags];
  console.log(
    `\n${elapsed().padStart(7)} ${bold(`$ node ${args.join(' ')} > ${relative(ROOT, LOG)} 2>&1 &`)}`,
  );
  const log = createWriteStream(LOG);
  controllerStarted = true;
  const child = track(
    spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  onCleanup(async () => {
    await stopController(child);
    log.end();
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  if (child.stderr) {
    createInterface({ input: child.stderr }).on('line', (line) => {
      try {
        const entry = JSON.parse(line) as { level?: string; msg?: string; error?: string };
        say(yellow(`controller ${entry.level ?? 'log'}: ${entry.msg ?? ''} ${entry.error ?? ''}`));
      } catch {
        say(yellow(`controller: ${line}`));
      }
    });
  }
  return child;
}

/**
 * Starts the controller as the end-to-end tests do (test/e2e/support/controller.ts: its flags,
 * its wait for synced caches), launched by launchController; resolves once its workers run.
 */
async function startDemoController(extra: readonly string[]): Promise<ChildProcess> {
  let child: ChildProcess | undefined;
  const starting = startController({
    identity: IDENTITY,
    // The demo's Prometheus and web endpoints are on loopback, denied to analysis by default.
    args: [
      '--leader-elect=false',
      `--namespace=${NS}`,
      '--analysis-allowed-hosts=127.0.0.0/8,::1',
      ...extra,
    ],
    launcher: { start: (flags) => (child = launchController(flags)) },
  });
  if (child === undefined) throw new Error('the controller was not launched');
  const launched = child;
  const logName = relative(ROOT, LOG);
  const exited = new Promise<never>((_, reject) =>
    launched.once('exit', (code, signal) =>
      reject(new DemoError(`the controller exited (${code ?? signal}); its log: ${logName}`)),
    ),
  );
  exited.catch(() => undefined); // reported by the race below, or by the watch after it
  try {
    await Promise.race([
      starting.then((c) => c.waitForLog((l) => l.msg === 'workers started')),
      exited,
    ]);
  } catch (err) {
    if (err instanceof DemoError) throw err;
    throw new DemoError(`the controller was not ready within 30 s (log: ${logName})`);
  }
  launched.once('exit', (code, signal) => {
    if (!stoppingController) {
      failNow(new DemoError(`the controller exited (${code ?? signal}) in mid-demo`));
    }
  });
  return launched;
}

/** Fails if Events in the namespace come from a Stepwise controller other than ours. */
async function expectOnlyOurController(): Promise<void> {
  const instances = await capture('kubectl', [
    '-n',
    NS,
    'get',
    'events.events.k8s.io',
    '-o',
    'jsonpath={range .items[?(@.reportingController=="stepwise-controller")]}{.reportingInstance}{"\\n"}{end}',
  ]);
  const others = [...new Set(instances.split('\n'))].filter((i) => i !== '' && i !== IDENTITY);
  expect(
    others.length === 0,
    `another Stepwise controller (${others.join(', ')}) also acts on namespace "${NS}", so what ` +
      'follows would not be this demo alone: stop it, or stop the shared cluster ' +
      '(make cluster-down) so that make demo starts a private one',
  );
}

async function main(): Promise<void> {
  const { sharedCluster } = await preflight();

  section('1. A local Kubernetes and the Rollout API');
  say(
    "etcd, kube-apiserver, kube-controller-manager and kube-scheduler built from Kubernetes' own",
    'modules, and three kwok nodes whose pods become Running and Ready without containers.',
    sharedCluster
      ? 'This is the cluster `make cluster-up` left running; it stays up afterwards.'
      : 'This cluster was started for the demo and is stopped when it ends.',
  );
  await kubectl('get', 'nodes');
  if (
    (await capture('kubectl', ['get', 'namespace', NS, '--ignore-not-found', '-o', 'name'])) !== ''
  ) {
    say(`An earlier run left namespace "${NS}": deleting it for a clean start (about 10 s).`);
    await kubectl('delete', 'namespace', NS, '--wait=true', '--timeout=90s');
  }
  say(
    'The CustomResourceDefinitions (Rollout, AnalysisTemplate, AnalysisRun, …), server-side applied:',
  );
  await kubectl('apply', '--server-side', '-f', 'deploy/crds/');
  const crds = [
    'crd/rollouts.stepwise.dev',
    'crd/analysistemplates.stepwise.dev',
    'crd/analysisruns.stepwise.dev',
  ];
  // kubectl wait fails outright on a CRD whose status the API server has not written yet
  // ("accessor error: <nil>"), which is the case for a moment after the apply.
  await crdStatusWritten(crds);
  await kubectl('wait', '--for=condition=Established', ...crds, '--timeout=30s');
  say(
    'The admission policies a real install has: a RolloutApproval must name its creator, and only',
    'the controller records approvals (without them the controller refuses plugin approvals):',
  );
  await kubectl('apply', '--server-side', '-f', 'deploy/approvals/');
  await installGatewayApi();

  section('2. The controller');
  say(
    `It watches Rollouts in namespace "${NS}" and their ReplicaSets, Pods and Services, and writes`,
    'with server-side apply. In a real cluster it runs as a Deployment; here, a child process,',
    'given the address of a real Prometheus on loopback for the analysis, and the port and keys',
    'of the approval links:',
  );
  const metrics = await startMetrics();
  const approvals = await startApprovalStage(ROOT);
  const controller = await startDemoController(approvals.controllerArgs);
  say(`Running (pid ${controller.pid}); it logged "workers started": it is ready.`);
  const dashboard = await startDashboard(NS);
  say(
    ...('url' in dashboard
      ? [
          'The same Rollouts, live in a browser while the demo runs (`kubectl stepwise dashboard`,',
          'acting with your kubeconfig; the address carries a one-time sign-in token):',
          `  ${bold(dashboard.url)}`,
        ]
      : [`(The dashboard did not start: ${dashboard.failed}; the demo goes on without it.)`]),
  );

  section('3. The first deploy');
  await kubectl('create', 'namespace', NS);
  say(
    'deploy/examples/rollout.yaml: Services web-stable and web-canary, and Rollout web: what a',
    'Deployment would say (4 replicas of registry.example/web:1.0), plus a canary strategy:',
  );
  await inDemo('apply', '-f', 'deploy/examples/rollout.yaml');
  const steps = JSON.parse(
    (await rolloutField('.spec.strategy.canary.steps')) || '[]',
  ) as CanaryStep[];
  say('Its steps, taken whenever the pod template changes:');
  say(...steps.map((s, i) => `  ${i + 1}. ${describeStep(s)}`));
  say('A first version has nothing to be compared with, so it skips the steps and is Healthy.');
  say('`status` waits for Healthy (exit 0) or Degraded (exit 1), which makes it useful in CI:');
  await stepwise('status', NAME, '--timeout', '60s');
  await stepwise('get', 'rollout', NAME);
  await expectOnlyOurController();

  const timeline = new Timeline(NS, NAME, steps);
  section('4. A new version: the canary stops at 25% and waits for a person');
  say(
    'In real life a commit in Git changes the image and Argo CD or Flux applies it. Here kubectl',
    'patches spec.template directly (the Rollout takes the place of a Deployment). The controller',
    'creates a ReplicaSet for the new template and walks the steps. The table after the command',
    'has a line per change of the Rollout, as it happens (a watch on it): STEP counts the steps',
    'done, as `get rollout` does; WEIGHT is the share of ready pods on the new version; UPDATED,',
    'the pods on the new version out of spec.replicas.',
  );
  const paused = await timeline.follow(
    'pause at the first step',
    (s) => s.phase === 'Paused',
    () => setImage('2.0'),
  );
  expect(
    paused.step === 1 && paused.updated === 1,
    `expected the first pause at step 1/${steps.length} with 1 updated pod, got ` +
      `step ${paused.step}, ${paused.updated} updated`,
  );
  await stepwise('get', 'rollout', NAME);
  say(
    'One pod of four runs 2.0. Pods carry role=canary or role=stable (canaryMetadata and',
    'stableMetadata), and every ReplicaSet and pod its rollouts-pod-template-hash:',
  );
  await showReplicaSetsAndPods();
  say("The Services are pinned to each side's hash, so web-canary reaches only the new pod:");
  await showServices();

  section('5. Promote: 50%, 5 s, 75%, 5 s, and 2.0 becomes the stable version');
  say('Someone looked at the canary and is happy with it. After the promote, the timed pauses end');
  say('by themselves: no one has to come back.');
  const healthy = await timeline.follow(
    'Healthy rollout',
    (s) => s.phase === 'Healthy',
    () => stepwise('promote', NAME),
    90_000,
  );
  expect(
    healthy.step === steps.length && healthy.updated === healthy.replicas,
    `expected all ${steps.length} steps done and every pod updated, got step ${healthy.step}, ` +
      `${healthy.updated}/${healthy.replicas} updated`,
  );
  await stepwise('get', 'rollout', NAME);
  say('web-stable now selects the 2.0 pods; the 1.0 ReplicaSet is scaled to zero and kept for');
  say('a rollback.');

  section('6. Another version, aborted at its first pause');
  say('3.0 starts the way 2.0 did:');
  await timeline.follow(
    'pause at the first step',
    (s) => s.phase === 'Paused',
    () => setImage('3.0'),
  );
  say('Something looks wrong with 3.0 (an alert, an error rate): abort.');
  let abortedAt = Date.now();
  await timeline.follow(
    'Degraded rollout',
    (s) => s.phase === 'Degraded',
    () => {
      abortedAt = Date.now();
      return stepwise('abort', NAME);
    },
  );
  const stableHash = await rolloutField('.status.stableRS');
  const canaryHash = await rolloutField('.status.currentPodHash');
  say('The stable ReplicaSet goes back to all 4 pods at once:');
  await inDemo(
    'wait',
    'rs',
    '-l',
    `rollouts-pod-template-hash=${stableHash}`,
    '--for=jsonpath={.status.readyReplicas}=4',
    '--timeout=60s',
  );
  await showReplicaSetsAndPods();
  say('Both Services select the stable pods again:');
  await showServices();
  say('`status` reports the abort and exits 1: in CI, the pipeline stops here.');
  await run('kubectl', ['stepwise', '-n', NS, 'status', NAME, '--timeout', '30s'], { ok: [1] });
  say(
    'Without a traffic router the pods are the traffic split, so the canary goes to zero at once',
    "(Argo's rule; with a router it is kept for abortScaleDownDelaySeconds, see act 7):",
  );
  await inDemo(
    'wait',
    'rs',
    '-l',
    `rollouts-pod-template-hash=${canaryHash}`,
    '--for=jsonpath={.spec.replicas}=0',
    '--timeout=60s',
  );
  say(`Scaled down ${seconds(Date.now() - abortedAt)} after \`kubectl stepwise abort\` was typed.`);
  await stepwise('get', 'rollout', NAME);
  say(
    'The Rollout stays Degraded until the next change in Git (or `kubectl stepwise retry rollout',
    'web`). What the controller recorded, as Events (`kubectl describe swro web` shows them too):',
  );
  await inDemo('events', '--for', `rollout/${NAME}`);
  await expectOnlyOurController();

  await trafficAct(NS, '7.');
  await analysisAct(NS, metrics);
  await approvalAct(NS, approvals, '9.');
  await blueGreenAct(NS, '10.');

  section('Done');
  say(
    'You saw:',
    '  - a first deploy: Healthy at once, nothing to compare with;',
    '  - a new image: a canary ReplicaSet at 25% (1 pod of 4), Services pinned to each side, and a',
    '    pause until `kubectl stepwise promote`;',
    '  - the rest of the steps on their own: 50%, 5 s, 75%, 5 s, then the new version stable;',
    '  - `kubectl stepwise abort`: stable back to 4 pods and both Services on it at once, the canary',
    '    scaled down, the Rollout Degraded, all of it in Events;',
    '  - weights on a Gateway API HTTPRoute at each step, and a forced GitOps re-apply undone;',
    '  - a bad release judged by Prometheus: the measured success rate, the condition it failed,',
    '    and the rollback, with no one watching;',
    '  - an approval step: a signed link sent to a webhook, its confirmation page, an approval by',
    '    POST, and who approved kept in the Rollout status;',
    '  - blue-green: the new version beside the old, the preview Service on it once its pods are',
    '    available, a pause until promoted, the active Service switched (SwitchService), and the',
    '    old version kept for its scale-down delay, then scaled to zero.',
  );
  say('', 'Stopping the controller:');
  await stopController(controller);
  say(
    `stopped (exit ${controller.exitCode ?? controller.signalCode}); its log: ${relative(ROOT, LOG)}`,
  );
  say(
    '',
    'To try it by hand: make cluster-up plugin && source .stepwise/cluster.env &&',
    'export PATH=$PWD/.stepwise/bin:$PATH && kubectl apply --server-side -f deploy/crds/ -f deploy/approvals/, then',
    '`make run` in one terminal and the commands above in another; make cluster-down at the end.',
  );
  if (sharedCluster) {
    say(`The cluster is still up, with namespace "${NS}" as the demo left it.`);
  }
  say('', bold(`The demo took ${seconds(Date.now() - started)}.`));
}

runDemo(main, () => {
  if (controllerStarted) {
    try {
      const tail = readFileSync(LOG, 'utf8').trim().split('\n').slice(-25).join('\n');
      console.error(`\nthe last lines of the controller's log (${relative(ROOT, LOG)}):\n${tail}`);
    } catch {
      console.error('(the controller left no log)');
    }
  }
  console.error(`\n(after ${seconds(Date.now() - started)})`);
});

/** Until each CRD has status conditions (30 s at most; kubectl wait says the rest). */
async function crdStatusWritten(crds: readonly string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  const pending = async (): Promise<boolean> => {
    const out = await capture('kubectl', [
      'get',
      ...crds,
      '-o',
      'jsonpath={.items[*].status.conditions[0].type}',
    ]);
    return out.split(/\s+/).filter(Boolean).length < crds.length;
  };
  while (Date.now() < deadline && (await pending())) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
