// The planner's simulated API server stores status through `storedStatus`
// (test/fixtures/rollout/status-store.ts); this checks that model against the real API server
// (issue 6, "What it must show" 2): the same writes in, the same stored status out. Writes are
// made as the controller makes them (server-side apply on /status, field manager
// stepwise-controller, force) and as the plugin does (a merge patch on /status under
// kubectl-stepwise). No controller runs here: every write is the test's own.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { FIELD_MANAGER, PLUGIN_FIELD_MANAGER } from '../../src/api/index.ts';
import type { Rollout } from '../../src/api/index.ts';
import { storedStatus } from '../fixtures/rollout/status-store.ts';
import { Sim, rolloutFixture } from '../fixtures/rollout/sim.ts';
import type { StatusObject } from '../fixtures/rollout/status-store.ts';
import { testNamespace } from '../cluster/testing.ts';
import { createRollout, http, installCrds, rolloutBody } from './support/rollouts.ts';

type Step =
  | { readonly apply: StatusObject }
  /** Top-level keys only, as the plugin writes them; null deletes. */
  | { readonly plugin: StatusObject };

interface Case {
  readonly name: string;
  readonly steps: readonly Step[];
}

const T1 = '2026-12-01T10:00:00Z';
const T2 = '2026-12-01T10:00:05Z';
const condition = (type: string, status: string, reason: string, at = T1) => ({
  type,
  status,
  reason,
  message: reason,
  lastUpdateTime: at,
  lastTransitionTime: at,
});

const CASES: Case[] = [
  {
    name: 'fields the apply omits are removed',
    steps: [
      { apply: { phase: 'Progressing', message: 'more replicas', replicas: 4, selector: 'app=a' } },
      { apply: { phase: 'Progressing', replicas: 4 } },
    ],
  },
  {
    name: 'zero counts are stored, and removed when omitted',
    steps: [
      {
        apply: {
          replicas: 0,
          updatedReplicas: 0,
          readyReplicas: 0,
          availableReplicas: 0,
          currentStepIndex: 0,
        },
      },
      { apply: { replicas: 0, currentStepIndex: 0 } },
    ],
  },
  {
    name: 'false booleans are stored',
    steps: [
      { apply: { abort: false, promoteFull: false, controllerPause: false } },
      { apply: { controllerPause: false } },
    ],
  },
  {
    name: 'empty lists and empty strings',
    steps: [
      { apply: { pauseConditions: [], conditions: [], message: '' } },
      { apply: { phase: 'Healthy' } },
    ],
  },
  {
    name: 'timestamps are stored as sent (with and without fractional seconds)',
    steps: [{ apply: { abortedAt: '2026-12-01T10:00:00.123Z', restartedAt: T1 } }],
  },
  {
    name: 'conditions are merged by type: an entry the apply omits goes, one it changes changes',
    steps: [
      {
        apply: {
          conditions: [
            condition('Progressing', 'True', 'ReplicaSetUpdated'),
            condition('Available', 'False', 'AvailableReason'),
          ],
        },
      },
      {
        apply: {
          conditions: [
            condition('Available', 'True', 'AvailableReason', T2),
            condition('Healthy', 'True', 'RolloutHealthy', T2),
          ],
        },
      },
    ],
  },
  {
    name: "the plugin's abort stays when the apply omits it, is taken over when stated",
    steps: [
      { apply: { phase: 'Paused', abort: false } },
      { plugin: { abort: true } },
      { apply: { phase: 'Paused' } },
      { apply: { phase: 'Degraded', abort: false } },
      { apply: { phase: 'Degraded' } },
    ],
  },
  {
    name: "the plugin's promoteFull stated with the same value by the apply is co-owned",
    steps: [
      { plugin: { promoteFull: true } },
      { apply: { phase: 'Progressing', promoteFull: true } },
      { apply: { phase: 'Progressing' } },
    ],
  },
  {
    name: 'the plugin deleting our pauseConditions (promote), then the apply omitting them',
    steps: [
      {
        apply: { phase: 'Paused', pauseConditions: [{ reason: 'CanaryPauseStep', startTime: T1 }] },
      },
      { plugin: { pauseConditions: null } },
      { apply: { phase: 'Progressing' } },
    ],
  },
  {
    name: 'pauseConditions set by the plugin, then a different list applied',
    steps: [
      { plugin: { pauseConditions: [{ reason: 'AwaitingApproval', startTime: T1 }] } },
      {
        apply: { phase: 'Paused', pauseConditions: [{ reason: 'CanaryPauseStep', startTime: T2 }] },
      },
      { apply: { phase: 'Paused' } },
    ],
  },
];

/** Statuses the planner really writes, from the simulator: a canary paused at its first step,
 *  then fully promoted (timestamps to the millisecond, every field the planner sets). */
function plannedStatuses(): StatusObject[] {
  const sim = new Sim(rolloutFixture({}));
  sim.run();
  sim.setImage('web:2');
  sim.run();
  const paused = structuredClone(sim.rollout.status ?? {});
  sim.patchStatus({ promoteFull: true });
  sim.run();
  return [paused, structuredClone(sim.rollout.status ?? {})];
}

CASES.push({
  name: "the planner's own statuses, paused at a step and then promoted",
  steps: plannedStatuses().map((apply) => ({ apply })),
});

before(() => installCrds());

describe('stored status: the simulator against the real API server', () => {
  for (const c of CASES) {
    it(c.name, async (t) => {
      const ns = await testNamespace('status-store');
      await createRollout(ns, rolloutBody('s'));
      let model: StatusObject = {};
      let userOwned = new Set<string>();
      for (const [i, step] of c.steps.entries()) {
        let server: StatusObject;
        if ('apply' in step) {
          server = await applyStatus(ns, 's', step.apply);
          const stored = storedStatus(model, step.apply, userOwned);
          model = stored.status;
          userOwned = new Set(stored.userOwned);
        } else {
          server = await pluginPatch(ns, 's', step.plugin);
          model = mergeTopLevel(model, step.plugin);
          for (const [k, v] of Object.entries(step.plugin)) {
            if (v === null) userOwned.delete(k);
            else userOwned.add(k);
          }
        }
        t.diagnostic(`step ${i + 1} ${JSON.stringify(step)} → server ${JSON.stringify(server)}`);
        assert.deepEqual(
          server,
          model,
          `after step ${i + 1} (${JSON.stringify(step)}): the server (actual) vs storedStatus (expected)`,
        );
      }
    });
  }
});

/** As src/kube/apply.ts `applyStatus` sends it. */
async function applyStatus(ns: string, name: string, status: object): Promise<StatusObject> {
  const body = {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'Rollout',
    metadata: { name, namespace: ns },
    status,
  };
  const query = `fieldManager=${FIELD_MANAGER}&force=true&fieldValidation=Strict`;
  const stored = await http.json<Rollout>(
    'PATCH',
    `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/${name}/status?${query}`,
    body,
    'application/apply-patch+yaml',
  );
  return stored.status ?? {};
}

/** As src/cli sends promote/abort/retry: a JSON merge patch on /status. */
async function pluginPatch(ns: string, name: string, status: object): Promise<StatusObject> {
  const stored = await http.json<Rollout>(
    'PATCH',
    `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/${name}/status?fieldManager=${PLUGIN_FIELD_MANAGER}`,
    { status },
    'application/merge-patch+json',
  );
  return stored.status ?? {};
}

/** The plugin's patches are top-level (lists and scalars), where a merge patch replaces. */
function mergeTopLevel(prev: StatusObject, patch: StatusObject): StatusObject {
  const next: StatusObject = { ...prev };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete next[k];
    else next[k] = structuredClone(v);
  }
  return next;
}
