// What restart, undo and set image write, pure: the restart time, the template undo copies
// (less what the controller added), the revision it picks, and set image's JSON patch.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Rollout } from '../../../src/api/rollout.ts';
import type { ReplicaSetLike } from '../../../src/cli/render/objects.ts';
import {
  decideRestart,
  decideSetImage,
  decideUndo,
  parseImageArgs,
  restartTime,
} from '../../../src/cli/spec-edits.ts';
import { rollout } from './fixtures.ts';

const HASH = 'rollouts-pod-template-hash';

/** A ReplicaSet of Rollout web at `revision` whose pods run `image` (as the controller made it). */
function rs(revision: number, image: string, extra: Record<string, string> = {}): ReplicaSetLike {
  const hash = `h${revision}`;
  return {
    metadata: {
      name: `web-${hash}`,
      labels: { app: 'web', [HASH]: hash },
      annotations: { 'stepwise.dev/revision': String(revision) },
      ownerReferences: [{ uid: 'uid-web', kind: 'Rollout', name: 'web', controller: true }],
    },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: { app: 'web', [HASH]: hash, ...extra } },
        spec: { containers: [{ name: 'web', image }] },
      } as never,
    },
  };
}

const web = (over: Partial<Rollout['spec']> = {}): Rollout => rollout({}, over);

describe('restart', () => {
  it('spec.restartAt in whole seconds, rounded up, UTC; --in adds to it', () => {
    assert.equal(restartTime(Date.parse('2026-03-01T12:00:00.000Z')), '2026-03-01T12:00:00Z');
    assert.equal(restartTime(Date.parse('2026-03-01T12:00:00.200Z')), '2026-03-01T12:00:01Z');
    assert.equal(restartTime(Date.parse('2026-03-01T12:00:00Z'), 90_000), '2026-03-01T12:01:30Z');
    const d = decideRestart(web(), Date.parse('2026-03-01T12:00:00Z'));
    assert.deepEqual(d.kind === 'patch' && d.patch, {
      spec: { restartAt: '2026-03-01T12:00:00Z' },
    });
  });
});

describe('undo', () => {
  const history = [rs(1, 'nginx:1.24'), rs(2, 'nginx:1.25'), rs(3, 'nginx:1.26')];

  it('defaults to the revision before the newest, without the hash label, on the resourceVersion read', () => {
    const d = decideUndo(web(), history, undefined);
    assert.equal(d.kind, 'patch');
    assert.deepEqual(d.kind === 'patch' && d.patch, [
      { op: 'replace', path: '/metadata/resourceVersion', value: '10' },
      {
        op: 'replace',
        path: '/spec/template',
        value: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] },
        },
      },
    ]);
    assert.equal(
      d.message,
      "rollout 'web' rolled back to the template of revision 2 (spec.template written)",
    );
  });

  it('--to-revision picks one; an unknown one lists the revisions on record', () => {
    const d = decideUndo(web(), history, 1);
    assert.match(JSON.stringify(d), /nginx:1\.24/);
    assert.deepEqual(decideUndo(web(), history, 7), {
      kind: 'error',
      message: "revision 7 of rollout 'web' not found (revisions on record: 1, 2, 3)",
    });
    assert.deepEqual(decideUndo(web(), [rs(1, 'nginx:1.24')], undefined), {
      kind: 'error',
      message: "rollout 'web' has no previous revision to go back to (revisions on record: 1)",
    });
  });

  it("only the Rollout's own ReplicaSets count", () => {
    const foreign = rs(2, 'evil:1');
    foreign.metadata!.ownerReferences = [{ uid: 'uid-other', controller: true }];
    const d = decideUndo(web(), [rs(1, 'nginx:1.24'), foreign, rs(3, 'nginx:1.26')], undefined);
    assert.match(JSON.stringify(d), /nginx:1\.24/);
  });

  it('role metadata the controller added is left out; a template that already matches is a no-op', () => {
    const canary = { canaryMetadata: { labels: { role: 'canary' } } };
    const ro = web({
      strategy: { canary: { ...canary, steps: [] } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] },
      },
    });
    const d = decideUndo(ro, [rs(2, 'nginx:1.25', { role: 'canary' }), rs(3, 'nginx:1.26')], 2);
    assert.deepEqual(d, {
      kind: 'noop',
      message: "rollout 'web' skipped undo: spec.template already matches revision 2",
    });
  });
});

describe('set image', () => {
  const two = web({
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        initContainers: [{ name: 'migrate', image: 'tool:1' }],
        containers: [
          { name: 'web', image: 'nginx:1.26' },
          { name: 'sidecar', image: 'envoy:1' },
        ],
      },
    },
  });

  it('tests each name at its index and replaces its image', () => {
    const d = decideSetImage(two, new Map([['sidecar', 'envoy:2']]));
    assert.deepEqual(d.kind === 'patch' && d.patch, [
      { op: 'test', path: '/spec/template/spec/containers/1/name', value: 'sidecar' },
      { op: 'replace', path: '/spec/template/spec/containers/1/image', value: 'envoy:2' },
    ]);
  });

  it('*=IMAGE sets every container, init containers included; a named one wins over *', () => {
    const d = decideSetImage(
      two,
      new Map([
        ['*', 'all:9'],
        ['web', 'nginx:2'],
      ]),
    );
    const ops = d.kind === 'patch' ? (d.patch as { path: string; value: unknown }[]) : [];
    assert.deepEqual(
      ops.filter((o) => o.path.endsWith('/image')).map((o) => [o.path, o.value]),
      [
        ['/spec/template/spec/containers/0/image', 'nginx:2'],
        ['/spec/template/spec/containers/1/image', 'all:9'],
        ['/spec/template/spec/initContainers/0/image', 'all:9'],
      ],
    );
  });

  it('an unknown container names the ones there are; the same image is a no-op', () => {
    assert.deepEqual(decideSetImage(two, new Map([['app', 'x:1']])), {
      kind: 'error',
      message: `rollout 'web' has no container "app" (containers: web, sidecar, migrate)`,
    });
    assert.equal(decideSetImage(two, new Map([['web', 'nginx:1.26']])).kind, 'noop');
  });

  it('CONTAINER=IMAGE arguments', () => {
    assert.deepEqual(
      parseImageArgs(['web=nginx:1.27', '*=x@sha256:ab']),
      new Map([
        ['web', 'nginx:1.27'],
        ['*', 'x@sha256:ab'],
      ]),
    );
    assert.equal(
      parseImageArgs(['nginx:1.27']),
      '"nginx:1.27" is not CONTAINER=IMAGE (or *=IMAGE for every container)',
    );
    assert.equal(
      parseImageArgs(['web=']),
      '"web=" is not CONTAINER=IMAGE (or *=IMAGE for every container)',
    );
  });
});
