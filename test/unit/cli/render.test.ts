import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  actualWeight,
  rolloutPhase,
  setWeight,
  stepText,
  WAITING_FOR_GENERATION,
  WAITING_FOR_UNPAUSE,
} from '../../../src/cli/render/info.ts';
import { renderHeader, renderRollout, renderTree } from '../../../src/cli/render/tree.ts';
import { ansiColor, stripAnsi, wantColor } from '../../../src/cli/render/color.ts';
import { columns, humanDuration } from '../../../src/cli/render/format.ts';
import { podStatus } from '../../../src/cli/render/pod.ts';
import {
  NOW,
  ago,
  canaryPods,
  canaryRS,
  pausedStatus,
  pod,
  replicaSet,
  rollout,
  stablePods,
  stableRS,
} from './fixtures.ts';
import { infoOf, lineOf, listOf } from './views.ts';

const paused = rollout(pausedStatus);
const allRS = [stableRS, canaryRS];
const allPods = [...stablePods, ...canaryPods];

test('get rollout: header and tree, like Argo Rollouts', () => {
  const out = renderRollout(infoOf(paused, allRS, allPods, NOW), { now: NOW });
  assert.equal(
    out,
    `Name:            web
Namespace:       shop
Status:          ॥ Paused
Message:         CanaryPauseStep
Strategy:        Canary
  Step:          1/4
  SetWeight:     20
  ActualWeight:  20
Images:          nginx:1.25 (stable)
                 nginx:1.26 (canary)
Replicas:
  Desired:       5
  Current:       5
  Updated:       1
  Ready:         5
  Available:     5

NAME                         KIND        STATUS     AGE    INFO
⟳ web                        Rollout     ॥ Paused   60m
├──# revision:2
│  └──⧉ web-c4n4ry           ReplicaSet  ✔ Healthy  6m40s  canary
│     └──□ web-c4n4ry-zzzzz  Pod         ✔ Running  90s    ready:1/1 restarts:2
└──# revision:1
   └──⧉ web-5t4bl3           ReplicaSet  ✔ Healthy  8m20s  stable
      ├──□ web-5t4bl3-aaaaa  Pod         ✔ Running  90s    ready:1/1 restarts:0
      ├──□ web-5t4bl3-bbbbb  Pod         ✔ Running  90s    ready:1/1 restarts:0
      ├──□ web-5t4bl3-ccccc  Pod         ✔ Running  90s    ready:1/1 restarts:0
      ├──□ web-5t4bl3-ddddd  Pod         ✔ Running  90s    ready:1/1 restarts:0
      └──□ web-5t4bl3-eeeee  Pod         ✔ Running  90s    ready:1/1 restarts:0
`,
  );
});

test('tree: colour only paints status cells and keeps the columns aligned', () => {
  const info = infoOf(paused, allRS, allPods, NOW);
  const plain = renderTree(info, { now: NOW });
  const coloured = renderTree(info, { now: NOW, paint: ansiColor });
  assert.notEqual(plain, coloured);
  assert.equal(stripAnsi(coloured), plain);
  assert.ok(coloured.includes('\x1b[36m॥ Paused\x1b[39m'));
  assert.ok(coloured.includes('\x1b[32m✔ Healthy\x1b[39m'));
});

test('tree: without ages (the watch compares these), and other owners are left out', () => {
  const foreign = replicaSet('0th3r', 9, 1, 'busybox');
  foreign.metadata!.ownerReferences = [{ uid: 'uid-other', kind: 'Rollout', name: 'other' }];
  const info = infoOf(paused, [...allRS, foreign], allPods, NOW);
  const tree = renderTree(info, { now: NOW, showAge: false });
  assert.doesNotMatch(tree, /AGE|0th3r|60m/);
  assert.match(tree.split('\n')[0]!, /^NAME +KIND +STATUS +INFO$/);
});

test('tree: scaled-down, progressing and failing objects get their icons', () => {
  const old = replicaSet('0ld0ld', 1, 0, 'nginx:1.24');
  const stable = replicaSet('5t4bl3', 2, 5, 'nginx:1.25', {
    annotations: { 'stepwise.dev/scale-down-deadline': new Date(NOW + 25_000).toISOString() },
  });
  const canary = replicaSet('c4n4ry', 3, 2, 'nginx:1.26', { available: 0 });
  const ro = rollout({
    ...pausedStatus,
    phase: 'Degraded',
    message: 'RolloutAborted: aborted',
    pauseConditions: [],
    controllerPause: false,
  });
  const pods = [pod(canary, 'x1', 'crash', 4), pod(canary, 'x2', 'starting')];
  const tree = renderTree(infoOf(ro, [old, stable, canary], pods, NOW), { now: NOW });
  assert.match(tree, /⟳ web +Rollout +✖ Degraded/);
  assert.match(tree, /⧉ web-0ld0ld +ReplicaSet +• ScaledDown/);
  assert.match(tree, /⧉ web-c4n4ry +ReplicaSet +◌ Progressing +\S+ +canary/);
  assert.match(tree, /⧉ web-5t4bl3 +ReplicaSet +✔ Healthy +\S+ +stable,delay:25s/);
  assert.match(tree, /□ web-c4n4ry-x1 +Pod +✖ CrashLoopBackOff +\S+ +ready:0\/1 restarts:4/);
  assert.match(tree, /□ web-c4n4ry-x2 +Pod +◌ ContainerCreating/);
  // revisions newest first
  assert.ok(tree.indexOf('revision:3') < tree.indexOf('revision:2'));
  assert.ok(tree.indexOf('revision:2') < tree.indexOf('revision:1'));
});

test('header: fully promoted shows one image tagged stable, weight 100, no message line', () => {
  const promoted = rollout({
    phase: 'Healthy',
    currentPodHash: '5t4bl3',
    stableRS: '5t4bl3',
    currentStepIndex: 4,
    replicas: 5,
    updatedReplicas: 5,
    readyReplicas: 5,
    availableReplicas: 5,
  });
  const header = renderHeader(infoOf(promoted, [stableRS], stablePods, NOW));
  assert.match(header, /Status: +✔ Healthy/);
  assert.doesNotMatch(header, /Message:/);
  assert.match(header, /Step: +4\/4/);
  assert.match(header, /SetWeight: +100\n +ActualWeight: +100/);
  assert.match(header, /Images: +nginx:1\.25 \(stable\)\nReplicas:/);
});

test('header: no ReplicaSets yet falls back to the template images', () => {
  const header = renderHeader(infoOf(rollout(), [], [], NOW));
  assert.match(header, /Images: +nginx:1\.26\n/);
  assert.match(header, /Status: +◌ Progressing/);
});

test('phase: trusted only when the generation is observed; a user resume is Progressing', () => {
  assert.deepEqual(rolloutPhase(paused), { phase: 'Paused', message: 'CanaryPauseStep' });
  assert.deepEqual(rolloutPhase(rollout({ ...pausedStatus, observedGeneration: '1' })), {
    phase: 'Progressing',
    message: WAITING_FOR_GENERATION,
  });
  const noStatus = rollout();
  delete noStatus.status;
  assert.equal(rolloutPhase(noStatus).message, WAITING_FOR_GENERATION);
  assert.deepEqual(rolloutPhase(rollout({ ...pausedStatus, pauseConditions: [] })), {
    phase: 'Progressing',
    message: WAITING_FOR_UNPAUSE,
  });
});

test('weights and steps', () => {
  const steps = (i: number | undefined, extra = {}) =>
    rollout({ ...pausedStatus, currentStepIndex: i, ...extra });
  assert.equal(setWeight(steps(0)), 20);
  assert.equal(setWeight(steps(1)), 20);
  assert.equal(setWeight(steps(2)), 50);
  assert.equal(setWeight(steps(4)), 100);
  assert.equal(setWeight(steps(2, { abort: true })), 0);
  assert.equal(setWeight(rollout({}, { strategy: { canary: {} } })), 100);
  assert.equal(stepText(steps(4)), '4/4');
  assert.equal(stepText(rollout({}, { strategy: { canary: {} } })), undefined);
  // routed weight wins over the pod share
  const routed = steps(1, {
    canary: { weights: { canary: { weight: 30 }, stable: { weight: 70 } } },
  });
  assert.equal(actualWeight(routed, allRS), 30);
  assert.equal(actualWeight(steps(1, { availableReplicas: 0 }), allRS), 0);
});

test('pod status follows kubectl', () => {
  const rs = canaryRS;
  assert.deepEqual(podStatus(pod(rs, 'a')), { text: 'Running', health: 'Healthy' });
  const notReady = pod(rs, 'b');
  notReady.status!.containerStatuses![0]!.ready = false;
  assert.deepEqual(podStatus(notReady), { text: 'Running', health: 'Progressing' });
  const terminating = pod(rs, 'c');
  terminating.metadata!.deletionTimestamp = ago(1);
  assert.deepEqual(podStatus(terminating), { text: 'Terminating', health: 'Progressing' });
  const failed = pod(rs, 'd');
  failed.status = { phase: 'Failed', reason: 'Evicted' };
  assert.deepEqual(podStatus(failed), { text: 'Evicted', health: 'Degraded' });
  const init = pod(rs, 'e');
  init.status!.initContainerStatuses = [{ state: { waiting: { reason: 'PodInitializing' } } }];
  assert.equal(podStatus(init).text, 'Init:0/1');
  const exited = pod(rs, 'f');
  exited.status!.containerStatuses![0]!.state = { terminated: { exitCode: 2 } };
  assert.deepEqual(podStatus(exited), { text: 'ExitCode:2', health: 'Degraded' });
});

test('list: kubectl-style columns, NAMESPACE first with -A, sorted', () => {
  const other = rollout({
    phase: 'Healthy',
    currentPodHash: 'h',
    stableRS: 'h',
    currentStepIndex: 4,
    readyReplicas: 5,
    availableReplicas: 5,
    updatedReplicas: 5,
  });
  other.metadata.name = 'api';
  other.metadata.namespace = 'a-team';
  assert.equal(
    listOf([paused, other]),
    `NAME  STRATEGY  STATUS   STEP  SET-WEIGHT  READY  DESIRED  UP-TO-DATE  AVAILABLE
api   Canary    Healthy  4/4   100         5/5    5        5           5
web   Canary    Paused   1/4   20          5/5    5        1           5
`,
  );
  const all = listOf([paused, other], { allNamespaces: true }).split('\n');
  assert.match(all[0]!, /^NAMESPACE +NAME +STRATEGY/);
  assert.match(all[1]!, /^a-team +api /);
});

test('status line', () => {
  assert.equal(
    lineOf({ phase: 'Progressing', message: 'more replicas need to be updated' }),
    'Progressing - more replicas need to be updated',
  );
  assert.equal(lineOf({ phase: 'Healthy', message: '' }), 'Healthy');
});

test('colour: --no-color, NO_COLOR, FORCE_COLOR and the terminal', () => {
  assert.equal(wantColor({}, true, true), true);
  assert.equal(wantColor({}, true, false), false);
  assert.equal(wantColor({}, false, true), false);
  assert.equal(wantColor({ NO_COLOR: '1' }, true, true), false);
  assert.equal(wantColor({ FORCE_COLOR: '1' }, true, false), true);
  assert.equal(wantColor({ FORCE_COLOR: '0' }, true, true), false);
});

test('formatting helpers', () => {
  assert.deepEqual(
    [45, 200, 1500, 4 * 3600 + 600, 30 * 3600, 3 * 86400 + 7200, 400 * 86400, 800 * 86400].map(
      (s) => humanDuration(s * 1000),
    ),
    ['45s', '3m20s', '25m', '4h10m', '30h', '3d2h', '400d', '2y'],
  );
  assert.deepEqual(
    columns([
      ['A', 'BB', 'C'],
      ['AAA', 'B', ''],
    ]),
    ['A    BB  C', 'AAA  B'],
  );
});
