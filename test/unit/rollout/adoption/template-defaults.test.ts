// A ReplicaSet stores its pod template with the API server's defaults; a Rollout stores its own
// as written. Argo's ReplicaSets are matched to a Rollout's template up to those defaults (never
// by Argo's Go hash), and a real difference is named by its path.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sameTemplate, templateDifference } from '../../../../src/rollout/template-defaults.ts';
import { storedTemplate } from './argo-shapes.ts';

const declared = (image: string) => ({
  metadata: { labels: { app: 'web', 'rollouts-pod-template-hash': 'h' } },
  spec: { containers: [{ name: 'web', image }] },
});

describe('templates up to the API server’s defaults', () => {
  it('the stored template is the declared one', () => {
    assert.ok(sameTemplate(declared('web:1'), storedTemplate('h', 'web:1')));
  });

  it('an image difference is named by path', () => {
    assert.equal(
      templateDifference(declared('web:2'), storedTemplate('h', 'web:1')),
      'spec.containers[0].image: live "web:1", declared "web:2"',
    );
  });

  it('a non-default value the declared template leaves out is a difference', () => {
    const live = storedTemplate('h', 'web:1');
    const c = live?.spec?.containers[0];
    if (c) c.terminationMessagePath = '/tmp/log';
    assert.match(
      templateDifference(declared('web:1'), live) ?? '',
      /terminationMessagePath: live "\/tmp\/log"/,
    );
  });

  it('imagePullPolicy defaults by tag: Always for :latest or no tag, else IfNotPresent', () => {
    const withPolicy = (image: string, imagePullPolicy: string) => ({
      spec: { containers: [{ name: 'web', image, imagePullPolicy }] },
    });
    const plain = (image: string) => ({ spec: { containers: [{ name: 'web', image }] } });
    assert.ok(sameTemplate(plain('web'), withPolicy('web', 'Always')));
    assert.ok(
      sameTemplate(plain('reg:5000/web:latest'), withPolicy('reg:5000/web:latest', 'Always')),
    );
    assert.ok(sameTemplate(plain('reg:5000/web:1'), withPolicy('reg:5000/web:1', 'IfNotPresent')));
    assert.ok(!sameTemplate(plain('web:1'), withPolicy('web:1', 'Always')));
  });

  it('an extra container or a missing label is a difference', () => {
    const live = storedTemplate('h', 'web:1');
    const two = {
      ...live,
      spec: {
        ...live?.spec,
        containers: [...(live?.spec?.containers ?? []), { name: 'side', image: 's' }],
      },
    };
    assert.match(
      templateDifference(declared('web:1'), two) ?? '',
      /spec\.containers: 2 live, 1 declared/,
    );
    const d = declared('web:1');
    assert.match(
      templateDifference(
        { ...d, metadata: { labels: { ...d.metadata.labels, tier: 'x' } } },
        live,
      ) ?? '',
      /metadata\.labels\.tier: live absent, declared "x"/,
    );
  });
});
