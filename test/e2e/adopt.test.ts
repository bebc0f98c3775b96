// Taking over what Argo Rollouts left running, on the real API server, garbage collector and
// ReplicaSet controller: Argo's shapes built by hand (an argoproj.io Rollout with the status Argo
// writes, its ReplicaSets labelled and annotated as Argo labels them, Services pinned to their
// hashes), no Argo controller. docs/migration.md's "From Argo Rollouts" lines run as written:
// `migrate --adopt` orphans Argo's ReplicaSets and the Stepwise controller adopts them: no pod
// created or deleted, Service selectors byte-identical, Paused at step 1; a promote goes on with
// Argo's replica math and the next template is revision 4. And what it refuses: ReplicaSets Argo
// still controls, a template no ReplicaSet runs, an Experiment step.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import type { Rollout, Service } from '../../src/api/index.ts';
import { REVISION_ANNOTATION } from '../../src/api/index.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { plugin } from './support/plugin.ts';
import {
  createRollout,
  getRollout,
  http,
  installCrds,
  replicaSets,
  split,
  waitFor,
  waitForEvents,
  waitForList,
  waitForRollout,
} from './support/rollouts.ts';

const ARGO = '/apis/argoproj.io/v1alpha1';
const HASH = 'rollouts-pod-template-hash';
const STABLE = '5d8f7c9b4';
const CANARY = '7b9c6d4f8';
const STEPS = [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: {} }];
const dir = mkdtempSync(join(tmpdir(), 'stepwise-adopt-'));
const controllers: ControllerProcess[] = [];

before(async () => {
  await installCrds();
  await installArgoRolloutCrd();
});
after(async () => {
  await Promise.all(controllers.map((c) => c.kill()));
  rmSync(dir, { recursive: true, force: true });
});

/** Argo's Rollout CRD: the one its build copied into the cache (as the Argo takeover tests
 *  install it), or, when that build has not run, a schemaless stand-in with a status. */
async function installArgoRolloutCrd(): Promise<void> {
  const name = 'rollouts.argoproj.io';
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const cached = join(
    process.env.STEPWISE_ARGO_DIR ??
      join(process.env.HOME ?? '', '.cache/stepwise/argo-rollouts-v1.9.2'),
    'crds/rollout-crd.yaml',
  );
  const exists = await http.json('GET', `${crds}/${name}`).then(
    () => true,
    () => false,
  );
  if (existsSync(cached)) {
    const body = load(readFileSync(cached, 'utf8'));
    await http.json(
      'PATCH',
      `${crds}/${name}?fieldManager=stepwise-tests&force=true`,
      body,
      'application/apply-patch+yaml',
    );
  } else if (!exists) {
    await http.json('POST', crds, standInCrd());
  }
  await waitFor(
    `CRD ${name} established`,
    crds,
    name,
    (o: { status?: { conditions?: { type: string; status: string }[] } }) =>
      o.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true,
  );
}

function standInCrd(): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'rollouts.argoproj.io' },
    spec: {
      group: 'argoproj.io',
      scope: 'Namespaced',
      names: { kind: 'Rollout', plural: 'rollouts', singular: 'rollout', shortNames: ['ro'] },
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          },
        },
      ],
    },
  };
}

const template = (image: string, hash?: string) => ({
  metadata: { labels: { app: 'web', ...(hash === undefined ? {} : { [HASH]: hash }) } },
  spec: { containers: [{ name: 'app', image: `registry.invalid/${image}` }] },
});

/** Argo's Rollout `web` at its first pause (image app:2), with the status Argo writes. */
async function argoRollout(ns: string, steps: readonly object[] = STEPS): Promise<string> {
  const created = await http.json<{ metadata: { uid: string } }>(
    'POST',
    `${ARGO}/namespaces/${ns}/rollouts`,
    {
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Rollout',
      metadata: { name: 'web' },
      spec: {
        replicas: 4,
        selector: { matchLabels: { app: 'web' } },
        template: template('app:2'),
        strategy: { canary: { canaryService: 'web-canary', stableService: 'web-stable', steps } },
      },
    },
  );
  await http.json(
    'PATCH',
    `${ARGO}/namespaces/${ns}/rollouts/web/status`,
    {
      status: {
        phase: 'Paused',
        stableRS: STABLE,
        currentPodHash: CANARY,
        currentStepIndex: 1,
        currentStepHash: '5f7b8d6c9',
        controllerPause: true,
        pauseConditions: [{ reason: 'CanaryPauseStep', startTime: new Date().toISOString() }],
        canary: {
          weights: {
            canary: { weight: 25, podTemplateHash: CANARY },
            stable: { weight: 75, podTemplateHash: STABLE },
          },
        },
      },
    },
    'application/merge-patch+json',
  );
  return created.metadata.uid;
}

/** A ReplicaSet as Argo's controller makes one; owned by the Argo Rollout when `owner` is given. */
async function argoReplicaSet(
  ns: string,
  hash: string,
  image: string,
  revision: number,
  replicas: number,
  owner?: string,
) {
  await http.json('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `web-${hash}`,
      labels: { app: 'web', [HASH]: hash },
      annotations: {
        'rollout.argoproj.io/revision': String(revision),
        'rollout.argoproj.io/desired-replicas': '4',
      },
      ...(owner === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: 'argoproj.io/v1alpha1',
                kind: 'Rollout',
                name: 'web',
                uid: owner,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }),
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web', [HASH]: hash } },
      template: template(image, hash),
    },
  });
}

async function argoService(ns: string, name: string, hash: string): Promise<void> {
  await http.json('POST', `/api/v1/namespaces/${ns}/services`, {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, annotations: { 'argo-rollouts.argoproj.io/managed-by-rollouts': 'web' } },
    spec: { selector: { app: 'web', [HASH]: hash }, ports: [{ port: 80 }] },
  });
}

interface PodLike {
  metadata: { uid: string; name: string; deletionTimestamp?: string };
  status?: { conditions?: { type: string; status: string }[] };
}
const ready = (p: PodLike) =>
  p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Argo's canary at its first pause, live: 3 stable pods, 1 canary pod, all Ready. */
async function argoAtFirstPause(
  prefix: string,
  owned: boolean,
): Promise<{ ns: string; uid: string; pods: string[] }> {
  const ns = await testNamespace(prefix);
  controllers.push(await startController({ args: ['--leader-elect=false', `--namespace=${ns}`] }));
  const uid = await argoRollout(ns);
  await argoService(ns, 'web-stable', STABLE);
  await argoService(ns, 'web-canary', CANARY);
  await argoReplicaSet(ns, STABLE, 'app:1', 2, 3, owned ? uid : undefined);
  await argoReplicaSet(ns, CANARY, 'app:2', 3, 1, owned ? uid : undefined);
  const pods = await waitForList<PodLike>(
    '4 Ready pods',
    `/api/v1/namespaces/${ns}/pods`,
    (items) => items.length === 4 && items.every(ready),
  );
  return { ns, uid, pods: pods.map((p) => p.metadata.uid).sort() };
}

const podUids = async (ns: string): Promise<string[]> =>
  (await http.json<{ items: PodLike[] }>('GET', `/api/v1/namespaces/${ns}/pods`)).items
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .map((p) => p.metadata.uid)
    .sort();
const selectors = async (ns: string): Promise<string> =>
  JSON.stringify(
    await Promise.all(
      ['web-stable', 'web-canary'].map(
        async (n) =>
          (await http.json<Service>('GET', `/api/v1/namespaces/${ns}/services/${n}`)).spec
            ?.selector,
      ),
    ),
  );

/** What the controller said and what the cluster holds, for a failure's message. */
async function diagnosis(ns: string): Promise<string> {
  const logs =
    controllers
      .at(-1)
      ?.logs.filter((l) => l.level !== 'debug' || /adopt|plan|write|reconcil/i.test(l.msg)) ?? [];
  const ro = await getRollout(ns, 'web');
  const rss = (await replicaSets(ns, 'web')).map((rs) => [
    rs.metadata?.name,
    rs.metadata?.ownerReferences,
    rs.metadata?.annotations,
  ]);
  return [
    ...logs.slice(-40).map((l) => JSON.stringify(l)),
    JSON.stringify(ro.status),
    JSON.stringify(rss),
  ].join('\n');
}

/** docs/migration.md's block, line by line. */
function readmeLines(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'docs', 'migration.md'), 'utf8');
  const block = /<!-- migrate-from-argo:[^\n]*-->\n+```sh\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'docs/migration.md has the migrate-from-argo block');
  return block.trim().split('\n');
}

describe('migrating from Argo Rollouts', () => {
  it('the migration guide’s lines: 0 pods created or deleted, selectors byte-identical, Paused at step 1; promote goes on; next revision 4', async () => {
    const { ns, pods } = await argoAtFirstPause('adopt-readme', true);
    const before = await selectors(ns);
    const [scale, migrate, commit] = readmeLines();
    assert.match(
      scale ?? '',
      /^kubectl -n argo-rollouts scale deployment\/argo-rollouts --replicas=0$/,
    ); // no Argo controller here
    const args = (migrate ?? '')
      .replace('-n shop', `-n ${ns}`)
      .replace('gitops/shop', join(dir, 'gitops/shop'))
      .split(' ');
    assert.deepEqual(args.slice(0, 3), ['kubectl', 'stepwise', 'migrate']);
    const run = await plugin(args.slice(2));
    assert.equal(run.code, 0, `${run.stderr}\n${await diagnosis(ns)}`);
    assert.match(
      run.stderr,
      /rollout 'web' adopted: took over web-5d8f7c9b4 \(revision 2\), web-7b9c6d4f8 \(revision 3\)/,
    );
    const ro = await waitForRollout(
      ns,
      'web',
      'Paused at step 1',
      (r) => r.status?.phase === 'Paused' && r.status.currentStepIndex === 1,
      5_000,
    );
    assert.equal(ro.status?.stableRS, STABLE);
    assert.equal(ro.status?.currentPodHash, CANARY);
    assert.deepEqual(await split(ns, ro), [1, 3]);
    assert.deepEqual(await podUids(ns), pods, 'no pod created or deleted');
    assert.equal(await selectors(ns), before, 'Service selectors byte-identical');
    for (const rs of await replicaSets(ns, 'web')) {
      const owner = rs.metadata?.ownerReferences?.find((r) => r.controller === true);
      assert.deepEqual(
        [owner?.apiVersion, owner?.kind, owner?.uid],
        ['stepwise.dev/v1alpha1', 'Rollout', ro.metadata.uid],
      );
    }
    assert.equal(
      (await http.json<{ items: unknown[] }>('GET', `${ARGO}/namespaces/${ns}/rollouts`)).items
        .length,
      0,
    );
    const written = load(
      readFileSync(join(dir, 'gitops/shop/rollout-web.yaml'), 'utf8'),
    ) as Rollout;
    assert.equal(written.apiVersion, 'stepwise.dev/v1alpha1');
    // The manifests committed as README says.
    await git(['init', '-q', 'gitops']);
    const sh = await promisify(execFile)('sh', ['-c', commit ?? ''], {
      cwd: dir,
      env: { ...process.env, ...GIT_ID },
    });
    assert.equal(sh.stderr, '');

    const promoted = await plugin(['promote', 'web', '-n', ns]);
    assert.equal(promoted.code, 0, promoted.stderr);
    const at3 = await waitForRollout(
      ns,
      'web',
      'Paused at step 3',
      (r) => r.status?.phase === 'Paused' && r.status.currentStepIndex === 3,
    );
    assert.deepEqual(await split(ns, at3), [2, 2], "Argo's replica math: 50 % of 4");

    await http.json(
      'PATCH',
      `/apis/stepwise.dev/v1alpha1/namespaces/${ns}/rollouts/web`,
      { spec: { template: template('app:3') } },
      'application/merge-patch+json',
    );
    const updated = await waitForRollout(
      ns,
      'web',
      'a new revision',
      (r) => ![STABLE, CANARY].includes(r.status?.currentPodHash ?? STABLE),
    );
    const next = (await replicaSets(ns, 'web')).find(
      (rs) => rs.metadata?.labels?.[HASH] === updated.status?.currentPodHash,
    );
    assert.equal(
      next?.metadata?.annotations?.[REVISION_ANNOTATION],
      '4',
      'revisions go on from Argo’s 3',
    );
  });

  it('ReplicaSets still controlled by the Argo Rollout: nothing adopted until it lets go, the condition says why', async () => {
    const { ns, pods } = await argoAtFirstPause('adopt-held', true);
    const converted = await plugin(['migrate', 'web', '-n', ns]);
    assert.equal(converted.code, 0, converted.stderr);
    await createRollout(ns, load(converted.stdout) as Rollout);
    const ro = await waitForRollout(
      ns,
      'web',
      'refused',
      (r) =>
        r.status?.conditions?.some(
          (c) => c.type === 'Adopted' && c.reason === 'ArgoRolloutStillOwns',
        ) === true,
    );
    assert.equal(ro.status?.phase, 'Degraded');
    assert.match(
      ro.status?.message ?? '',
      /controlled by argoproj.io Rollout web.*--cascade=orphan/,
    );
    await waitForEvents(ns, ['ArgoRolloutStillOwns']);
    const rss = await replicaSets(ns, 'web');
    assert.equal(rss.length, 2, 'no ReplicaSet created');
    assert.ok(
      rss.every(
        (rs) =>
          rs.metadata?.ownerReferences?.[0]?.kind === 'Rollout' &&
          rs.metadata.ownerReferences[0].apiVersion === 'argoproj.io/v1alpha1',
      ),
    );
    assert.deepEqual(await podUids(ns), pods);
  });

  it('a template no live ReplicaSet runs: the difference named, nothing adopted; an Experiment step: nothing converted', async () => {
    const { ns, pods } = await argoAtFirstPause('adopt-nomatch', false);
    const converted = await plugin(['migrate', 'web', '-n', ns]);
    const body = load(converted.stdout) as Rollout;
    body.spec.template = template('app:9');
    await createRollout(ns, body);
    const ro = await waitForRollout(
      ns,
      'web',
      'refused',
      (r) => r.status?.conditions?.some((c) => c.reason === 'NoMatchingReplicaSet') === true,
    );
    assert.match(
      ro.status?.message ?? '',
      /web-7b9c6d4f8: spec\.containers\[0\]\.image: live "registry\.invalid\/app:2", declared "registry\.invalid\/app:9"/,
    );
    assert.ok(
      (await replicaSets(ns, 'web')).every((rs) => rs.metadata?.ownerReferences === undefined),
    );
    assert.deepEqual(await podUids(ns), pods);

    const ns2 = await testNamespace('adopt-experiment');
    await argoRollout(ns2, [
      { setWeight: 25 },
      { experiment: { templates: [{ name: 'baseline', specRef: 'stable' }] } },
    ]);
    const refused = await plugin(['migrate', 'web', '-n', ns2, '--adopt']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /Rollout\/web: spec\.strategy\.canary\.steps\[1\]\.experiment: Argo's Experiment step/,
    );
    await assert.rejects(getRollout(ns2, 'web'), 'nothing applied');
  });
});

const GIT_ID = {
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@t',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@t',
};
async function git(args: string[]): Promise<void> {
  await promisify(execFile)('git', args, { cwd: dir, env: { ...process.env, ...GIT_ID } });
}
