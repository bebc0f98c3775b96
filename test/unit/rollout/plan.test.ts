import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../fixtures/rollout/sim.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../../src/api/index.ts';

/** A sim whose first revision is deployed and healthy. */
function deployed(spec = {}): Sim {
  const sim = new Sim(rolloutFixture(spec));
  sim.run();
  return sim;
}

function weights(sim: Sim): number[] {
  const status = sim.rollout.status ?? {};
  const canary = [...sim.replicaSets.values()].find(
    (rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === status.currentPodHash,
  );
  const stable = [...sim.replicaSets.values()].find(
    (rs) => rs.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] === status.stableRS,
  );
  return [canary?.spec?.replicas ?? 0, stable === canary ? 0 : (stable?.spec?.replicas ?? 0)];
}

describe('first deploy', () => {
  it('creates one ReplicaSet at full size, skips the steps and becomes Healthy', () => {
    const sim = deployed();
    const status = sim.rollout.status ?? {};
    assert.equal(sim.replicaSets.size, 1);
    assert.deepEqual(Object.values(sim.replicaCounts()), [4]);
    assert.equal(status.phase, 'Healthy');
    assert.equal(status.stableRS, status.currentPodHash);
    assert.equal(status.currentStepIndex, 4);
    assert.equal(status.availableReplicas, 4);
    assert.ok(sim.events().some((e) => e.startsWith('NewReplicaSetCreated')));
  });

  it('is a fixed point once settled: no writes from an idle pass', () => {
    const sim = deployed();
    sim.advance(3_600_000);
    assert.deepEqual(sim.pass().writes, []);
  });
});

describe('canary steps', () => {
  it('walks setWeight 25 → pause → promote → setWeight 50 → timed pause → full promotion', () => {
    const sim = deployed();
    const firstHash = sim.rollout.status?.stableRS;
    sim.setImage('web:2');
    sim.run();
    let status = sim.rollout.status ?? {};
    assert.equal(status.currentStepIndex, 1, 'stops at the indefinite pause');
    assert.equal(status.phase, 'Paused');
    assert.equal(status.message, 'CanaryPauseStep');
    assert.equal(status.controllerPause, true);
    assert.deepEqual(weights(sim), [1, 3], '25% of 4 pods');
    assert.equal(status.canary?.weights, undefined, 'a basic canary has no traffic weights (Argo)');
    assert.notEqual(status.currentPodHash, firstHash);
    assert.equal(status.stableRS, firstHash, 'stable stays until promotion');

    sim.promote();
    sim.run();
    status = sim.rollout.status ?? {};
    assert.equal(status.currentStepIndex, 3, 'through setWeight 50 to the timed pause');
    assert.deepEqual(weights(sim), [2, 2]);
    const plan = sim.pass();
    assert.equal(plan.writes.length, 0);
    assert.ok(plan.requeueAfterMs !== undefined && plan.requeueAfterMs <= 30_000);

    sim.advance(30_000);
    sim.run();
    status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Healthy');
    assert.equal(status.stableRS, status.currentPodHash);
    assert.equal(status.currentStepIndex, 4);
    assert.equal(status.canary, undefined, 'no weights once promoted');
    assert.deepEqual(Object.values(sim.replicaCounts()).sort(), [0, 4]);
    const events = sim.events();
    for (const reason of [
      'RolloutUpdated',
      'RolloutPaused',
      'RolloutResumed',
      'RolloutStepCompleted',
      'RolloutCompleted',
    ]) {
      assert.ok(
        events.some((e) => e.startsWith(reason)),
        `event ${reason}`,
      );
    }
    assert.ok(events.includes('RolloutStepCompleted: Rollout step 1/4 completed (setWeight: 25)'));
  });

  it('does not advance a setWeight step until the canary pods are available', () => {
    const sim = deployed();
    sim.podsBecomeReady = false;
    sim.setImage('web:2');
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.currentStepIndex, 0);
    assert.equal(status.phase, 'Progressing');
    assert.deepEqual(weights(sim), [1, 3]);
  });

  it('pause with a duration asks to be woken at expiry, not before, and resumes on its own', () => {
    const sim = deployed({
      strategy: { canary: { steps: [{ setWeight: 50 }, { pause: { duration: 90 } }] } },
    });
    sim.setImage('web:2');
    sim.run();
    const first = sim.pass();
    assert.equal(first.requeueAfterMs, 90_000);
    sim.advance(89_999);
    assert.equal(sim.pass().writes.length, 0);
    sim.advance(1);
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });

  it('promote full skips the remaining steps and pauses', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Paused');
    sim.patchStatus({ promoteFull: true, pauseConditions: null });
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Healthy');
    assert.equal(status.promoteFull ?? false, false, 'promoteFull is reset once done');
    const promotedAt = sim.log.find(
      (w) =>
        w.kind === 'applyStatus' &&
        w.status.stableRS === w.status.currentPodHash &&
        w.status.currentPodHash === status.currentPodHash,
    );
    assert.equal(
      promotedAt?.kind === 'applyStatus' && promotedAt.status.currentStepIndex,
      4,
      'steps done in the same write that promotes',
    );
    assert.equal(status.stableRS, status.currentPodHash);
  });

  it('editing the steps restarts them', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    sim.promote();
    sim.run();
    assert.equal(sim.rollout.status?.currentStepIndex, 3);
    sim.rollout.spec.strategy.canary = { steps: [{ setWeight: 10 }, { pause: {} }] };
    sim.run();
    assert.equal(sim.rollout.status?.currentStepIndex, 1);
  });

  it('a spec.paused Rollout keeps its replicas but does not advance', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.rollout.spec.paused = true;
    sim.run();
    assert.equal(sim.rollout.status?.currentStepIndex, 0);
    assert.equal(sim.rollout.status?.phase, 'Paused');
    assert.equal(sim.rollout.status?.message, 'manually paused');
  });

  it('setCanaryScale sets the canary pod count apart from the weight steps', () => {
    const sim = deployed({
      replicas: 10,
      strategy: { canary: { steps: [{ setCanaryScale: { replicas: 3 } }, { pause: {} }] } },
    });
    sim.setImage('web:2');
    sim.run();
    assert.deepEqual(weights(sim), [3, 7]);
  });
});

describe('abort and retry', () => {
  it('abort scales the stable back to full, the canary down, and is Degraded', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    sim.patchStatus({ abort: true });
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Degraded');
    assert.match(status.message ?? '', /^RolloutAborted: /);
    assert.equal(status.currentStepIndex, 0);
    assert.ok(status.abortedAt);
    assert.deepEqual(weights(sim), [0, 4]);
    assert.ok(sim.events().some((e) => e.startsWith('RolloutAborted')));
  });

  it('a basic canary scales its canary down at once on abort, stableService or not (Argo)', () => {
    const sim = new Sim(
      rolloutFixture({
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-stable',
            abortScaleDownDelaySeconds: 10,
            steps: [{ setWeight: 50 }, { pause: {} }],
          },
        },
      }),
    );
    sim.services.set('web-canary', serviceFixture('web-canary'));
    sim.services.set('web-stable', serviceFixture('web-stable'));
    sim.run();
    sim.setImage('web:2');
    sim.run();
    sim.patchStatus({ abort: true });
    sim.run();
    assert.deepEqual(weights(sim), [0, 4], 'abortScaleDownDelaySeconds applies only with a router');
    assert.equal(sim.pass().requeueAfterMs, undefined, 'no timer for it either');
    const stableHash = sim.rollout.status?.stableRS;
    assert.equal(
      sim.services.get('web-canary')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      stableHash,
    );
  });

  it('retry after abort starts the steps again', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    sim.patchStatus({ abort: true });
    sim.run();
    sim.patchStatus({ abort: false });
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Paused');
    assert.equal(status.abortedAt, undefined);
    assert.equal(status.currentStepIndex, 1);
    assert.deepEqual(weights(sim), [1, 3]);
    assert.ok(sim.events().some((e) => e.startsWith('RolloutRetry')));
  });

  it('a new template after an abort clears the abort', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    sim.patchStatus({ abort: true });
    sim.run();
    sim.setImage('web:3');
    sim.run();
    assert.equal(sim.rollout.status?.abort ?? false, false);
    assert.equal(sim.rollout.status?.phase, 'Paused');
  });
});

describe('template back to stable', () => {
  it('skips the steps: stable back to full, canary scaled down, Healthy', () => {
    const sim = deployed();
    sim.setImage('web:2');
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Paused');
    sim.setImage('web:1');
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Healthy');
    assert.equal(status.currentPodHash, status.stableRS);
    assert.equal(status.pauseConditions, undefined);
    assert.deepEqual(Object.values(sim.replicaCounts()).sort(), [0, 4]);
  });
});

describe('services', () => {
  it('pins canaryService to the canary hash and stableService to the stable hash', () => {
    const sim = new Sim(
      rolloutFixture({
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-stable',
            steps: [{ setWeight: 50 }, { pause: {} }],
          },
        },
      }),
    );
    sim.services.set('web-canary', serviceFixture('web-canary'));
    sim.services.set('web-stable', serviceFixture('web-stable'));
    sim.run();
    const first = sim.rollout.status?.stableRS;
    const selector = (n: string) => sim.services.get(n)?.spec?.selector ?? {};
    assert.deepEqual(selector('web-stable'), { app: 'web', [POD_TEMPLATE_HASH_LABEL]: first });
    sim.setImage('web:2');
    sim.run();
    const canaryHash = sim.rollout.status?.currentPodHash;
    assert.equal(selector('web-canary')[POD_TEMPLATE_HASH_LABEL], canaryHash);
    assert.equal(selector('web-stable')[POD_TEMPLATE_HASH_LABEL], first);
    sim.promote();
    sim.run();
    assert.equal(selector('web-stable')[POD_TEMPLATE_HASH_LABEL], canaryHash);
    assert.equal(
      sim.services.get('web-stable')?.metadata?.annotations?.['stepwise.dev/managed-by'],
      'web',
    );
  });
});

describe('invalid spec', () => {
  const cases: [string, object, RegExp][] = [
    [
      'weight over 100',
      { strategy: { canary: { steps: [{ setWeight: 120 }] } } },
      /setWeight: must be between 0 and 100/,
    ],
    [
      'selector not matching the template',
      { selector: { matchLabels: { app: 'other' } } },
      /selector: must match/,
    ],
    [
      'unknown service',
      { strategy: { canary: { canaryService: 'nope' } } },
      /Service "nope" not found/,
    ],
    [
      'garbage pause',
      { strategy: { canary: { steps: [{ pause: { duration: 'soon' } }] } } },
      /pause.duration/,
    ],
    [
      'both surge and unavailable zero',
      { strategy: { canary: { maxSurge: 0, maxUnavailable: 0 } } },
      /must not both be zero/,
    ],
    [
      'a misspelt pod-template field (the API server would refuse the ReplicaSet)',
      {
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'web:1', imagePullPolicyy: 'Always' }] },
        },
      },
      /spec\.template\.spec\.containers\[0\]\.imagePullPolicyy: unknown field in a Container/,
    ],
  ];
  for (const [name, spec, message] of cases) {
    it(`${name}: InvalidSpec condition, Degraded, a Warning event, nothing else`, () => {
      const sim = new Sim(rolloutFixture(spec));
      const plan = sim.pass();
      const status = sim.rollout.status ?? {};
      assert.equal(status.phase, 'Degraded');
      const cond = status.conditions?.find((c) => c.type === 'InvalidSpec');
      assert.match(cond?.message ?? '', message);
      assert.deepEqual(
        plan.writes.map((w) => w.kind),
        ['applyStatus', 'event'],
      );
      assert.equal(sim.replicaSets.size, 0);
      assert.deepEqual(sim.pass().writes, [], 'reported once');
    });
  }

  it('recovers once the spec is fixed', () => {
    const sim = new Sim(rolloutFixture({ strategy: { canary: { steps: [{ setWeight: 120 }] } } }));
    sim.pass();
    sim.rollout.spec.strategy.canary = { steps: [{ setWeight: 20 }] };
    sim.run();
    assert.equal(sim.rollout.status?.phase, 'Healthy');
    assert.equal(
      sim.rollout.status?.conditions?.find((c) => c.type === 'InvalidSpec'),
      undefined,
    );
  });
});

describe('progress deadline', () => {
  it('marks Degraded when the canary makes no progress, and aborts with progressDeadlineAbort', () => {
    const sim = deployed({ progressDeadlineSeconds: 60, progressDeadlineAbort: true });
    sim.podsBecomeReady = false;
    sim.setImage('web:2');
    sim.run();
    const plan = sim.pass();
    assert.ok(plan.requeueAfterMs !== undefined && plan.requeueAfterMs <= 60_000);
    sim.advance(60_000);
    sim.run();
    const status = sim.rollout.status ?? {};
    const progressing = status.conditions?.find((c) => c.type === 'Progressing');
    assert.equal(progressing?.reason, 'RolloutAborted');
    assert.equal(status.abort, true);
    assert.equal(status.phase, 'Degraded');
    assert.deepEqual(weights(sim), [0, 4]);
    assert.ok(sim.events().some((e) => e.startsWith('ProgressDeadlineExceeded')));
  });

  it('without progressDeadlineAbort it only reports', () => {
    const sim = deployed({ progressDeadlineSeconds: 60 });
    sim.podsBecomeReady = false;
    sim.setImage('web:2');
    sim.run();
    sim.advance(61_000);
    sim.run();
    const status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Degraded');
    assert.match(status.message ?? '', /^ProgressDeadlineExceeded/);
    assert.equal(status.abort ?? false, false);
  });

  it('does not count time spent paused', () => {
    const sim = deployed({ progressDeadlineSeconds: 60 });
    sim.setImage('web:2');
    sim.run();
    sim.advance(3_600_000);
    assert.deepEqual(sim.pass().writes, []);
    assert.equal(sim.rollout.status?.phase, 'Paused');
  });
});

describe('restartAt', () => {
  it('evicts pods created before restartAt, at most maxUnavailable at a time, then records it', () => {
    const sim = deployed({ strategy: { canary: { maxUnavailable: 1, maxSurge: 1 } } });
    sim.advance(1000);
    const restartAt = new Date(sim.now).toISOString();
    sim.rollout.spec.restartAt = restartAt;
    const first = sim.pass();
    assert.equal(first.writes.filter((w) => w.kind === 'evictPod').length, 1);
    sim.run();
    assert.equal(sim.rollout.status?.restartedAt, restartAt);
    const created = [...sim.pods.values()].map((p) =>
      new Date(p.metadata?.creationTimestamp ?? 0).getTime(),
    );
    assert.ok(
      created.every((t) => t >= Date.parse(restartAt)),
      'every pod is new',
    );
    assert.ok(sim.events().some((e) => e.startsWith('RolloutRestarted')));
  });

  it('a restartAt in the future is a timer', () => {
    const sim = deployed();
    sim.rollout.spec.restartAt = new Date(sim.now + 5000).toISOString();
    assert.equal(sim.pass().requeueAfterMs, 5000);
  });
});

describe('revision history', () => {
  it('deletes scaled-down ReplicaSets beyond revisionHistoryLimit', () => {
    const sim = deployed({ revisionHistoryLimit: 1, strategy: { canary: {} } });
    for (const image of ['web:2', 'web:3', 'web:4']) {
      sim.setImage(image);
      sim.run();
    }
    assert.equal(sim.replicaSets.size, 2, 'current + one old');
    assert.ok(sim.events().some((e) => e.startsWith('DeletedOldReplicaSet')));
  });
});

describe('ephemeral metadata', () => {
  it('canary pods carry canaryMetadata and switch to stableMetadata on promotion', () => {
    const sim = deployed({
      strategy: {
        canary: {
          canaryMetadata: { labels: { role: 'canary' } },
          stableMetadata: { labels: { role: 'stable' } },
          steps: [{ setWeight: 50 }, { pause: {} }],
        },
      },
    });
    sim.setImage('web:2');
    sim.run();
    const roles = () => [...sim.pods.values()].map((p) => p.metadata?.labels?.role).sort();
    assert.deepEqual(roles(), ['canary', 'canary', 'stable', 'stable']);
    sim.promote();
    sim.run();
    assert.deepEqual(roles(), ['stable', 'stable', 'stable', 'stable']);
  });
});

describe('status contract', () => {
  it('records observedGeneration, the selector and the counts', () => {
    const sim = deployed();
    const status = sim.rollout.status ?? {};
    assert.equal(status.observedGeneration, '1');
    assert.equal(status.selector, 'app=web');
    assert.equal(status.replicas, 4);
    assert.equal(status.readyReplicas, 4);
    const types = (status.conditions ?? []).map((c) => `${c.type}=${c.status}`).sort();
    assert.deepEqual(types, [
      'Available=True',
      'Completed=True',
      'Healthy=True',
      'Progressing=True',
    ]);
  });
});

describe('GitOps tracking labels', () => {
  it('are not copied onto the ReplicaSet we create, but the pods keep every template label', () => {
    const labels = { app: 'web', 'app.kubernetes.io/instance': 'web-prod' };
    const sim = new Sim(
      rolloutFixture({
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'web', image: 'web:1' }] } },
      }),
    );
    sim.run();
    const rs = [...sim.replicaSets.values()][0];
    assert.equal(rs?.metadata?.labels?.['app.kubernetes.io/instance'], undefined);
    assert.equal(rs?.spec?.template?.metadata?.labels?.['app.kubernetes.io/instance'], 'web-prod');
    assert.equal(rs?.spec?.selector?.matchLabels?.['app.kubernetes.io/instance'], 'web-prod');
    assert.equal(sim.rollout.status?.phase, 'Healthy');
  });
});

describe('a person pauses and resumes (kubectl stepwise pause|resume, status only)', () => {
  it('holds the canary at its step, survives a new revision, and goes on when resumed', () => {
    const sim = deployed({
      strategy: { canary: { steps: [{ setWeight: 25 }, { setWeight: 50 }, { setWeight: 75 }] } },
    });
    sim.setImage('web:2');
    sim.pass();
    sim.pauseByUser();
    sim.run();
    let status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Paused');
    assert.equal(status.message, 'PausedByUser');
    assert.equal(status.currentStepIndex, 0, 'no step moved while held');
    assert.deepEqual(sim.pass().writes, [], 'a held rollout is a fixed point');

    sim.setImage('web:3');
    sim.run();
    status = sim.rollout.status ?? {};
    assert.deepEqual(
      status.pauseConditions?.map((c) => c.reason),
      ['PausedByUser'],
      'a new revision restarts the steps but keeps the person’s pause',
    );
    assert.equal(status.currentStepIndex, 0);

    sim.resume();
    sim.run();
    status = sim.rollout.status ?? {};
    assert.equal(status.phase, 'Healthy');
    assert.equal(status.pauseConditions, undefined);
  });
});
