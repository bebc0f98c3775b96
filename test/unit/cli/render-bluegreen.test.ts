// `get rollout` and `list` on a blue-green Rollout: the Services and the ReplicaSets they
// select, Argo's role tags, the analyses and the pause; nothing of the canary's steps or weights.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderHeader, renderRollout } from '../../../src/cli/render/tree.ts';
import { analysisRun } from './fixtures.ts';
import {
  NOW,
  T0,
  bgHealthy,
  bgPaused,
  bgPostPromotion,
  blueGreenRollout,
  bluePods,
  blueRS,
  greenPods,
  greenRS,
} from './bluegreen-fixtures.ts';
import { infoOf, listOf } from './views.ts';

const manual = {
  autoPromotionEnabled: false,
  prePromotionAnalysis: { templates: [{ templateName: 'smoke' }] },
};

test('get rollout, blue-green paused before the switch: Services, tags, analysis, pause', () => {
  const ro = blueGreenRollout(bgPaused, manual);
  const run = analysisRun('web-gr33n-2-pre', 'Successful', []);
  const out = renderRollout(
    infoOf(ro, [blueRS, greenRS], [...bluePods, ...greenPods], NOW, [run]),
    {
      now: NOW,
    },
  );
  assert.equal(
    out,
    `Name:            web
Namespace:       shop
Status:          ॥ Paused
Message:         BlueGreenPause
Strategy:        BlueGreen
  Active:        web-active → web-bl4e (revision 1)
  Preview:       web-preview → web-gr33n (revision 2)
  AutoPromote:   off (promote by hand)
  Pause:         BlueGreenPause: waits for 'promote'
  PrePromotion:  web-gr33n-2-pre Successful
Images:          nginx:1.25 (stable, active)
                 nginx:1.26 (preview)
Replicas:
  Desired:       2
  Current:       3
  Updated:       1
  Ready:         2
  Available:     2

NAME                        KIND         STATUS        AGE    INFO
⟳ web                       Rollout      ॥ Paused      60m
├──# revision:2
│  ├──⧉ web-gr33n           ReplicaSet   ✔ Healthy     6m40s  preview
│  │  └──□ web-gr33n-zzzzz  Pod          ✔ Running     90s    ready:1/1 restarts:0
│  └──α web-gr33n-2-pre     AnalysisRun  ✔ Successful  60s
└──# revision:1
   └──⧉ web-bl4e            ReplicaSet   ✔ Healthy     8m20s  stable,active
      ├──□ web-bl4e-aaaaa   Pod          ✔ Running     90s    ready:1/1 restarts:0
      └──□ web-bl4e-bbbbb   Pod          ✔ Running     90s    ready:1/1 restarts:0
`,
  );
});

test('get rollout, blue-green: no step, no weights (canary-only lines)', () => {
  const header = renderHeader(infoOf(blueGreenRollout(bgPaused), [blueRS, greenRS], [], NOW));
  assert.doesNotMatch(header, /Step:|SetWeight|ActualWeight|canary/);
});

test('get rollout, blue-green healthy: one ReplicaSet, stable and active, both Services on it', () => {
  const header = renderHeader(infoOf(blueGreenRollout(bgHealthy), [blueRS], bluePods, NOW));
  assert.match(header, /Active: +web-active → web-bl4e \(revision 1\)/);
  assert.match(header, /Preview: +web-preview → web-bl4e \(revision 1\)/);
  assert.match(header, /AutoPromote: +on\n/);
  assert.match(header, /Images: +nginx:1\.25 \(stable, active\)\nReplicas:/);
  assert.doesNotMatch(header, /Pause:|PrePromotion|PostPromotion/);
});

test('get rollout, blue-green after the switch: active on revision 2, stable still 1, post-promotion running', () => {
  const ro = blueGreenRollout(bgPostPromotion, {
    postPromotionAnalysis: { templates: [{ templateName: 'smoke' }] },
  });
  const info = infoOf(
    ro,
    [blueRS, { ...greenRS, spec: { ...greenRS.spec, replicas: 2 } }],
    [],
    NOW,
  );
  const tags = Object.fromEntries(
    info.revisions.flatMap((r) => r.replicaSets).map((rs) => [rs.name, rs.tags.join(',')]),
  );
  assert.deepEqual(tags, { 'web-gr33n': 'active', 'web-bl4e': 'stable' });
  const header = renderHeader(info);
  assert.match(header, /Message: +waiting for analysis to complete/);
  assert.match(header, /Active: +web-active → web-gr33n \(revision 2\)/);
  assert.match(header, /PostPromotion: +web-gr33n-2-post Running/);
  // Without prePromotionAnalysis in the spec, the status of the run that passed is still shown.
  assert.match(header, /PrePromotion: +web-gr33n-2-pre Successful/);
});

test('get rollout, blue-green: auto-promotion countdown, unknown and unset selectors, no preview Service', () => {
  const ro = blueGreenRollout(
    { ...bgPaused, blueGreen: { activeSelector: 'g0ne', previewSelector: '' } },
    { autoPromotionSeconds: 10, previewService: undefined },
  );
  const header = renderHeader(infoOf(ro, [blueRS, greenRS], [], Date.parse(T0) + 4_200));
  assert.match(header, /Pause: +BlueGreenPause: promotes itself in 6s \(or 'promote' now\)/);
  assert.match(header, /AutoPromote: +after 10s/);
  assert.match(header, /Active: +web-active → pod-template-hash g0ne \(no such ReplicaSet\)/);
  assert.doesNotMatch(header, /Preview:/);
  const first = renderHeader(
    infoOf(blueGreenRollout({ ...bgHealthy, blueGreen: {} }), [blueRS], [], NOW),
  );
  assert.match(first, /Active: +web-active → no revision selected yet/);
  assert.match(first, /Preview: +web-preview → no revision selected yet/);
  // With the pre-promotion analysis declared but not started yet.
  const waiting = renderHeader(
    infoOf(blueGreenRollout({ ...bgPaused, blueGreen: {} }, manual), [blueRS, greenRS], [], NOW),
  );
  assert.match(waiting, /PrePromotion: +not started/);
});

test('get rollout, blue-green: a failed analysis shows its message', () => {
  const ro = blueGreenRollout({
    ...bgPaused,
    phase: 'Degraded',
    abort: true,
    pauseConditions: [],
    blueGreen: {
      activeSelector: 'bl4e',
      previewSelector: 'gr33n',
      prePromotionAnalysisRunStatus: {
        name: 'web-gr33n-2-pre',
        status: 'Failed',
        message: 'metric "smoke" assessed Failed',
      },
    },
  });
  const header = renderHeader(infoOf(ro, [blueRS, greenRS], [], NOW));
  assert.match(header, /PrePromotion: +web-gr33n-2-pre Failed: metric "smoke" assessed Failed/);
  assert.doesNotMatch(header, /Pause:/);
});

test('list: blue-green shows BlueGreen and no step or weight', () => {
  const out = listOf([blueGreenRollout(bgPaused, manual)]);
  assert.equal(
    out,
    `NAME  STRATEGY   STATUS  STEP  SET-WEIGHT  READY  DESIRED  UP-TO-DATE  AVAILABLE
web   BlueGreen  Paused  -     -           2/2    2        1           2
`,
  );
});
