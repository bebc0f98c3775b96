/**
 * `make demo`: a narrated walk through a canary on the local control plane. Runs under
 * `test/cluster/cli.ts with`, so KUBECONFIG points at a loopback cluster and kubectl is on PATH;
 * `make plugin` has put `kubectl-stepwise` in .stepwise/bin.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const NS = 'demo';
const LOG = join(ROOT, '.stepwise', 'demo-controller.log');
const started = Date.now();
process.env.PATH = `${join(ROOT, '.stepwise', 'bin')}:${process.env.PATH ?? ''}`;

const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const clock = (): string => `+${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s`;

function section(title: string): void {
  console.log(`\n${bold(`── ${clock()}  ${title} `.padEnd(96, '─'))}`);
}

function say(text: string): void {
  console.log(`   ${text}`);
}

/** Runs a command with its output shown; `ok` lists the exit codes that are not failures. */
function run(cmd: string, args: string[], ok: number[] = [0]): Promise<number> {
  console.log(bold(`\n$ ${[cmd, ...args].join(' ')}`));
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (ok.includes(code ?? -1)) resolve(code ?? 0);
      else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code}`));
    });
  });
}

/** Runs a command quietly and returns its output. */
function capture(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

const kubectl = (...args: string[]): Promise<number> => run('kubectl', args);
const stepwise = (...args: string[]): Promise<number> =>
  run('kubectl', ['stepwise', '-n', NS, ...args]);
const rolloutField = (path: string): string =>
  capture('kubectl', ['-n', NS, 'get', 'swro', 'web', '-o', `jsonpath={${path}}`]);

function setImage(tag: string): Promise<number> {
  const patch = {
    spec: {
      template: { spec: { containers: [{ name: 'web', image: `registry.example/web:${tag}` }] } },
    },
  };
  return kubectl('-n', NS, 'patch', 'swro', 'web', '--type', 'merge', '-p', JSON.stringify(patch));
}

function startController(): Promise<ChildProcess> {
  const log = createWriteStream(LOG);
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      join(ROOT, 'src', 'controller', 'main.ts'),
      '--leader-elect=false',
      '--metrics-bind-address=127.0.0.1:0',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr?.pipe(log);
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      log.write(chunk);
      buffered += chunk.toString('utf8');
      if (buffered.includes('"msg":"workers started"')) resolve(child);
    });
    child.once('exit', (code) =>
      reject(new Error(`the controller exited (${code}) before it was ready`)),
    );
  });
}

async function main(): Promise<void> {
  section('1. The local control plane and the Stepwise API');
  say("etcd, kube-apiserver, controller-manager and scheduler built from Kubernetes' own modules,");
  say('three kwok nodes; everything on 127.0.0.1. Installing the Rollout CRD (server-side apply):');
  await kubectl('get', 'nodes');
  await kubectl('apply', '--server-side', '-f', join(ROOT, 'deploy', 'crds'));
  await kubectl(
    'wait',
    '--for=condition=Established',
    'crd/rollouts.stepwise.dev',
    '--timeout=30s',
  );

  section('2. The controller');
  const controller = await startController();
  const stop = (): void => {
    controller.kill('SIGTERM');
  };
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });
  process.once('exit', stop);
  say(`stepwise-controller is running (pid ${controller.pid}); its log: ${LOG}`);

  section('3. A Rollout: 4 replicas, steps 25% → pause → 50% → 10s → 75% → 10s');
  if (spawnSync('kubectl', ['get', 'ns', NS]).status === 0) {
    say(`removing the namespace "${NS}" left by an earlier run...`);
    await kubectl('delete', 'ns', NS, '--wait=true', '--timeout=60s');
  }
  await kubectl('create', 'ns', NS);
  await kubectl('-n', NS, 'apply', '-f', join(ROOT, 'deploy', 'examples', 'rollout.yaml'));
  say('A first deploy has nothing to compare with, so it skips the steps:');
  await stepwise('status', 'web', '--timeout', '60s');
  await stepwise('get', 'rollout', 'web');

  section('4. A new version: the canary starts at 25% and waits for a person');
  say('In real life Git changes the image and Argo CD or Flux applies it. Here, kubectl patch:');
  await setImage('2.0');
  await stepwise('status', 'web', '--timeout', '60s', '--success-on-pause');
  await stepwise('get', 'rollout', 'web');
  say("One pod of four runs 2.0; the Services are pinned to each side's pod-template hash:");
  await kubectl('-n', NS, 'get', 'pods', '-L', 'role,rollouts-pod-template-hash');
  await kubectl(
    '-n',
    NS,
    'get',
    'svc',
    'web-stable',
    'web-canary',
    '-o',
    'custom-columns=SERVICE:.metadata.name,SELECTOR:.spec.selector',
  );

  section('5. Promote: 50% → 10 s pause → 75% → 10 s pause → fully promoted');
  await stepwise('promote', 'web');
  say('`status` follows the phase until Healthy (each line is a change as it happens):');
  await stepwise('status', 'web', '--timeout', '90s');
  await stepwise('get', 'rollout', 'web');

  section('6. Another version, aborted at the first pause');
  await setImage('3.0');
  await stepwise('status', 'web', '--timeout', '60s', '--success-on-pause');
  await stepwise('abort', 'web');
  say('Stable back to full at once; status exits 1 because the rollout is Degraded:');
  await run('kubectl', ['stepwise', '-n', NS, 'status', 'web', '--timeout', '30s'], [1]);
  const canary = `web-${rolloutField('.status.currentPodHash')}`;
  say(`The canary ReplicaSet ${canary} keeps its pod for abortScaleDownDelaySeconds (5 s), then:`);
  await kubectl(
    '-n',
    NS,
    'wait',
    `rs/${canary}`,
    '--for=jsonpath={.spec.replicas}=0',
    '--timeout=60s',
  );
  await stepwise('get', 'rollout', 'web');
  say('What the controller recorded (kubectl describe shows the same):');
  await kubectl(
    '-n',
    NS,
    'get',
    'events',
    '--field-selector',
    'involvedObject.kind=Rollout',
    '--sort-by=.metadata.creationTimestamp',
    '-o',
    'custom-columns=TYPE:.type,REASON:.reason,MESSAGE:.message',
  );

  section('Done');
  say('Shown: a first deploy, a canary walking setWeight/pause steps with a promote, and an abort');
  say('that sent traffic back to the stable version. Every write came from server-side apply');
  say('under the field manager "stepwise-controller"; promote and abort wrote only to status:');
  await kubectl(
    '-n',
    NS,
    'get',
    'swro',
    'web',
    '--show-managed-fields',
    '-o',
    'jsonpath={range .metadata.managedFields[*]}{.manager}{"\\t"}{.operation}{"\\t"}{.subresource}{"\\n"}{end}',
  );
  console.log(`\n   (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  stop();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(`\ndemo failed: ${err instanceof Error ? err.message : String(err)}`);
    try {
      console.error(`\nlast lines of the controller log (${LOG}):`);
      console.error(readFileSync(LOG, 'utf8').trim().split('\n').slice(-20).join('\n'));
    } catch {
      console.error('(no controller log)');
    }
    process.exit(1);
  },
);
