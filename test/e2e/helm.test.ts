// The Helm chart (deploy/helm/stepwise) and the Kustomize base (deploy/) against the local control
// plane, with a real helm v4 built from its Go module (test/helm/build.sh): lint, the rendered
// chart against the base, the values schema, install, upgrade, uninstall, and the controller as
// the chart installs it (its args, its ServiceAccount's RBAC) walking a canary to Healthy.
//
// kwok runs no containers, so the controller the chart installs runs here from the image
// `make image` builds, under runc as the image e2e runs it: with the installed Deployment's args,
// env and volumes (listeners moved to loopback, the Secret volume's keys written to a directory
// bound at its mountPath) and a token of the chart's ServiceAccount, so the chart's RBAC is all
// it has.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dump, loadAll } from 'js-yaml';
import { readCredentials } from '../cluster/kubeconfig.ts';
import { REPO_ROOT } from '../cluster/state.ts';
import { eventually, testNamespace } from '../cluster/testing.ts';
import { ControllerProcess } from './support/controller.ts';
import { DEPLOY_CLUSTER_OBJECTS, holdForThisFile } from './support/exclusive.ts';
import { CHART_DIR, helm, setArgs } from './support/helm.ts';
import { RuncContainers, imageTools, runImage, unpackImage } from './support/runc.ts';
import type { ContainerVolume, UnpackedImage } from './support/runc.ts';
import type { HelmValues } from './support/helm.ts';
import { kubectl } from './support/kubectl.ts';
import { parseConfig } from '../../src/controller/config.ts';
import { parseTargetPolicy } from '../../src/notify/index.ts';
import {
  createRollout,
  http,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  split,
  waitForEvents,
  waitForRollout,
} from './support/rollouts.ts';

interface Metadata {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface KubeDoc {
  apiVersion: string;
  kind: string;
  metadata: Metadata;
  [field: string]: unknown;
}
interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }[];
  ports?: { name: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
}
interface Deployment extends KubeDoc {
  spec: {
    replicas: number;
    template: {
      spec: {
        serviceAccountName: string;
        containers: Container[];
        volumes?: {
          name: string;
          secret?: { secretName: string };
          emptyDir?: Record<string, unknown>;
        }[];
      };
    };
  };
  status?: { availableReplicas?: number };
}
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const BASE_NAMESPACE = 'stepwise-system';
/** Labels the chart adds to the base's objects and selectors (Helm's and the recommended ones;
 *  the release in selectors keeps two releases in one namespace apart). */
const CHART_LABELS = new Set([
  'helm.sh/chart',
  'app.kubernetes.io/part-of',
  'app.kubernetes.io/instance',
  'app.kubernetes.io/version',
  'app.kubernetes.io/managed-by',
  'app.kubernetes.io/name',
  'app.kubernetes.io/component',
]);
/** Annotations the chart adds: its CRDs survive `helm uninstall`. */
const CHART_ANNOTATIONS = new Set(['helm.sh/resource-policy']);

const docs = (yaml: string): KubeDoc[] =>
  (loadAll(yaml) as (KubeDoc | null)[]).filter((d): d is KubeDoc => d !== null);
const keyOf = (d: KubeDoc): string => `${d.kind}/${d.metadata.namespace ?? ''}/${d.metadata.name}`;
const byKey = (list: KubeDoc[]): Map<string, KubeDoc> => new Map(list.map((d) => [keyOf(d), d]));
const find = <T extends KubeDoc>(list: KubeDoc[], kind: string, name: string): T => {
  const found = list.find((d) => d.kind === kind && d.metadata.name === name);
  assert.ok(found, `${kind} ${name} rendered`);
  return found as T;
};
const controllerContainer = (d: Deployment): Container => {
  const container = d.spec.template.spec.containers[0];
  assert.ok(container);
  return container;
};

async function ok(run: Promise<{ code: number | null; stdout: string; stderr: string }>) {
  const result = await run;
  assert.equal(result.code, 0, `exit ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** `helm template` of the chart as release `release` in `namespace`. */
async function render(
  release: string,
  namespace: string,
  values: HelmValues = {},
): Promise<KubeDoc[]> {
  return docs(
    await ok(helm(['template', release, CHART_DIR, '-n', namespace, ...setArgs(values)])),
  );
}

interface LabelMap {
  /** Where it is, e.g. `spec.selector.matchLabels`. */
  readonly path: string;
  readonly holder: Record<string, unknown>;
  readonly key: string;
}

/** The label maps of an object: its own and those of its selectors and pod template. */
function labelMaps(d: KubeDoc): LabelMap[] {
  const spec = d.spec as Record<string, Record<string, unknown>> | undefined;
  const maps: LabelMap[] = [
    {
      path: 'metadata.labels',
      holder: d.metadata as unknown as Record<string, unknown>,
      key: 'labels',
    },
  ];
  if (!spec) return maps;
  if (d.kind === 'Service') maps.push({ path: 'spec.selector', holder: spec, key: 'selector' });
  else {
    for (const name of ['selector', 'podSelector']) {
      const selector = spec[name];
      if (selector)
        maps.push({ path: `spec.${name}.matchLabels`, holder: selector, key: 'matchLabels' });
    }
  }
  const template = spec.template as
    | {
        metadata?: Record<string, unknown>;
        spec?: { topologySpreadConstraints?: { labelSelector?: Record<string, unknown> }[] };
      }
    | undefined;
  if (template?.metadata) {
    maps.push({ path: 'spec.template.metadata.labels', holder: template.metadata, key: 'labels' });
  }
  // A spread constraint selects the pods as the Deployment does (the chart: with the release).
  template?.spec?.topologySpreadConstraints?.forEach((c, i) => {
    if (c.labelSelector) {
      maps.push({
        path: `spec.template.spec.topologySpreadConstraints[${i}].labelSelector.matchLabels`,
        holder: c.labelSelector,
        key: 'matchLabels',
      });
    }
  });
  return maps;
}

/** Deletes the keys of `holder[key]` in `added` that `kept` lacks (and the map, when emptied). */
function strip(holder: Record<string, unknown>, key: string, added: Set<string>, kept: object) {
  const map = holder[key] as Record<string, string> | undefined;
  if (!map) return;
  for (const k of Object.keys(map)) if (added.has(k) && !(k in kept)) delete map[k];
  if (Object.keys(map).length === 0 && Object.keys(kept).length === 0) delete holder[key];
}

/**
 * The chart's object less what the chart adds to the base's: its labels where the base has none
 * of that key, and its annotations. Anything else that differs is a difference.
 */
function withoutChartAdditions(chart: KubeDoc, base: KubeDoc): KubeDoc {
  const copy = structuredClone(chart);
  const baseMaps = new Map(labelMaps(base).map((m) => [m.path, m]));
  for (const { path, holder, key } of labelMaps(copy)) {
    const baseMap = baseMaps.get(path);
    strip(holder, key, CHART_LABELS, (baseMap?.holder[baseMap.key] as object | undefined) ?? {});
  }
  const metadata = copy.metadata as unknown as Record<string, unknown>;
  strip(metadata, 'annotations', CHART_ANNOTATIONS, base.metadata.annotations ?? {});
  return copy;
}

// `helm uninstall` removes deploy/'s admission policy and ClusterRoles, which approvals.test.ts
// applies and relies on: the two files never run at once.
before(() => holdForThisFile(DEPLOY_CLUSTER_OBJECTS));
after(() => {
  // Each test deletes what it made; this covers a test that failed half-way.
  void kubectl(['delete', 'namespace', BASE_NAMESPACE, '--ignore-not-found', '--wait=false']);
});

describe('the Kustomize base', () => {
  it('kubectl apply --server-side -k deploy/ applies cleanly, leaves no diff, and runs', async () => {
    // A run before this one may have left its namespace terminating.
    await eventually(`namespace ${BASE_NAMESPACE} gone or active`, async () => {
      const res = await http.request('GET', `/api/v1/namespaces/${BASE_NAMESPACE}`);
      if (res.status === 404) return true;
      const ns = JSON.parse(res.body) as { status?: { phase?: string } };
      return ns.status?.phase === 'Active' ? true : undefined;
    });
    const base = join(REPO_ROOT, 'deploy');
    const applied = await ok(kubectl(['apply', '--server-side', '-k', base]));
    assert.match(applied, /deployment.apps\/stepwise-controller serverside-applied/);
    // Exit 0: the cluster holds exactly what the base says (nothing defaulted away, no conflict).
    await ok(kubectl(['diff', '--server-side', '-k', base]));
    await ok(
      kubectl([
        'rollout',
        'status',
        '-n',
        BASE_NAMESPACE,
        'deployment/stepwise-controller',
        '--timeout=60s',
      ]),
    );
  });

  it('moves to the chart: without its namespace, helm install adopts the rest (docs/installation.md)', async () => {
    // The Deployment's selector is immutable and the chart's names its release: the base's
    // namespaced objects go first. The cluster-scoped ones are adopted without --force-conflicts:
    // the identity policy's matchConstraints (atomic) spell out the API server's defaults, so
    // kubectl's value and Helm's are the same and neither apply conflicts with the other.
    await ok(kubectl(['delete', 'namespace', BASE_NAMESPACE, '--timeout=60s']));
    const install = ['install', 'stepwise', CHART_DIR, '-n', BASE_NAMESPACE, '--create-namespace'];
    const refused = await helm([...install, '--wait']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /exists and cannot be imported into the current release/);
    await ok(helm([...install, '--take-ownership', '--wait', '--timeout=60s']));
    const role = await http.json<KubeDoc>(
      'GET',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles/stepwise-controller',
    );
    assert.equal(role.metadata.annotations?.['meta.helm.sh/release-name'], 'stepwise');
    await ok(helm(['uninstall', 'stepwise', '-n', BASE_NAMESPACE, '--wait']));
    await ok(kubectl(['delete', 'namespace', BASE_NAMESPACE, '--wait=false']));
  });
});

describe('the chart, rendered', () => {
  it('helm lint --strict passes, with the defaults and with every option on', async () => {
    const variants: HelmValues[] = [
      {},
      {
        watchNamespace: 'apps',
        instanceId: 'blue',
        'approvals.publicUrl': 'https://stepwise.example.com',
        'metrics.serviceMonitor.enabled': true,
        'observability.dashboard.enabled': true,
        'observability.prometheusRule.enabled': true,
        logFormat: 'text',
        replicas: 1,
      },
      { 'approvals.enabled': false, 'notifications.secretName': '', 'crds.install': false },
      {
        'rbac.namespaced': true,
        'approvals.ingress.enabled': true,
        'approvals.httpRoute.enabled': true,
        'approvals.httpRoute.parentRefs[0].name': 'public',
        'caBundle.configMapName': 'corp-ca',
        'prometheus.address': 'http://prometheus.monitoring:9090',
        'extraArgs[0]': '--workers=20',
        'metrics.serviceMonitor.enabled': true,
        'metrics.serviceMonitor.namespace': 'monitoring',
      },
    ];
    for (const values of variants) {
      const out = await ok(helm(['lint', '--strict', CHART_DIR, ...setArgs(values)]));
      assert.match(out, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    }
  });

  it('with the defaults, renders the Kustomize base: same objects, rules, args and ports', async () => {
    const chart = await render('stepwise', BASE_NAMESPACE);
    const base = docs(await ok(kubectl(['kustomize', join(REPO_ROOT, 'deploy')])));
    // The one object of the base the chart leaves out: Helm makes the release's namespace
    // (--create-namespace) and must not own it.
    const baseObjects = byKey(base.filter((d) => d.kind !== 'Namespace'));
    assert.ok(base.some((d) => d.kind === 'Namespace' && d.metadata.name === BASE_NAMESPACE));
    const chartObjects = byKey(chart);
    assert.deepEqual([...chartObjects.keys()].sort(), [...baseObjects.keys()].sort());

    // The parts people look at first, for a readable failure...
    const rules = (list: KubeDoc[], kind: string, name: string) =>
      find<KubeDoc & { rules: Rule[] }>(list, kind, name).rules;
    for (const name of [
      'stepwise-controller',
      'stepwise-operator',
      'stepwise-view',
      'stepwise-approver',
    ]) {
      assert.deepEqual(rules(chart, 'ClusterRole', name), rules(base, 'ClusterRole', name), name);
    }
    assert.deepEqual(
      rules(chart, 'Role', 'stepwise-controller-leader-election'),
      rules(base, 'Role', 'stepwise-controller-leader-election'),
    );
    const chartPod = controllerContainer(find(chart, 'Deployment', 'stepwise-controller'));
    const basePod = controllerContainer(find(base, 'Deployment', 'stepwise-controller'));
    assert.deepEqual(chartPod.args, basePod.args);
    assert.deepEqual(chartPod.ports, basePod.ports);
    // ...then every object whole, less the chart's labels and annotations.
    for (const [key, baseObject] of baseObjects) {
      const chartObject = chartObjects.get(key);
      assert.ok(chartObject);
      assert.deepEqual(withoutChartAdditions(chartObject, baseObject), baseObject, key);
    }
  });

  it('options change what they should: approvals, notifications, one namespace, monitoring', async () => {
    const quiet = await render('stepwise', 'ops', {
      'approvals.enabled': false,
      'notifications.secretName': '',
      replicas: 1,
      'identityPolicy.enabled': false,
      'jobProviderPolicy.enabled': false,
      'statusPolicy.enabled': false,
      'rbac.userRoles': false,
      'crds.install': false,
      'networkPolicy.enabled': false,
      'image.digest': `sha256:${'ab'.repeat(32)}`,
    });
    const kinds = quiet.map((d) => d.kind).sort();
    assert.deepEqual(kinds, [
      'ClusterRole',
      'ClusterRoleBinding',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    const quietDeployment = find<Deployment>(quiet, 'Deployment', 'stepwise-controller');
    const container = controllerContainer(quietDeployment);
    assert.equal(container.image, `stepwise-controller@sha256:${'ab'.repeat(32)}`);
    assert.ok(!container.args?.some((a) => /external-bind|notifications-dir/.test(a)));
    assert.deepEqual(
      container.ports?.map((p) => p.name),
      ['metrics'],
    );
    // Only the scratch directory: no notifications Secret to mount.
    assert.deepEqual(
      quietDeployment.spec.template.spec.volumes?.map((v) => v.name),
      ['tmp'],
    );

    const scoped = await render('blue', 'ops', {
      watchNamespace: 'apps',
      instanceId: 'blue',
      'approvals.publicUrl': 'https://stepwise.example.com',
      'metrics.serviceMonitor.enabled': true,
      'metrics.serviceMonitor.labels.release': 'prometheus',
      logLevel: 'debug',
      logFormat: 'text',
    });
    const deployment = find<Deployment>(scoped, 'Deployment', 'blue-stepwise-controller');
    assert.deepEqual(controllerContainer(deployment).args?.slice(4), [
      '--log-level=debug',
      '--log-format=text',
      '--qps=50',
      '--burst=100',
      '--namespace=apps',
      '--instance-id=blue',
      // The release's own identity policy (the chart names it after the release).
      '--identity-policy=blue-stepwise-rolloutapproval-identity',
      '--public-url=https://stepwise.example.com',
    ]);
    // One namespace watched: the rules hold there only, plus reading cluster templates.
    const binding = find(scoped, 'RoleBinding', 'blue-stepwise-controller');
    assert.equal(binding.metadata.namespace, 'apps');
    assert.ok(
      !scoped.some(
        (d) => d.kind === 'ClusterRoleBinding' && d.metadata.name === 'blue-stepwise-controller',
      ),
    );
    assert.deepEqual(
      find<KubeDoc & { rules: Rule[] }>(
        scoped,
        'ClusterRole',
        'blue-stepwise-controller-cluster-templates',
      ).rules,
      [
        {
          apiGroups: ['stepwise.dev'],
          resources: ['clusteranalysistemplates'],
          verbs: ['get', 'list', 'watch'],
        },
        // The identity policy's presence is checked at start-up and every 10 s (cluster-scoped).
        {
          apiGroups: ['admissionregistration.k8s.io'],
          resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'],
          verbs: ['get'],
        },
      ],
    );
    // The status policy's verb stays the controller's cluster-wide: a namespaced grant would not
    // pass the policy's cluster-scope check.
    const recordApprovals = find<KubeDoc & { subjects: { name: string }[] }>(
      scoped,
      'ClusterRoleBinding',
      'blue-stepwise-controller-record-approvals',
    );
    assert.deepEqual(
      recordApprovals.subjects.map((s) => s.name),
      ['blue-stepwise-controller'],
    );
    assert.ok(
      !scoped.some(
        (d) => d.metadata.name === 'blue-stepwise-break-glass' && d.kind === 'ClusterRoleBinding',
      ),
    );
    const breakGlass = await render('stepwise', 'ops', {
      'breakGlass.subjects[0].kind': 'User',
      'breakGlass.subjects[0].name': 'oncall',
      'breakGlass.subjects[0].apiGroup': 'rbac.authorization.k8s.io',
    });
    assert.deepEqual(
      find<KubeDoc & { subjects: unknown[]; roleRef: { name: string } }>(
        breakGlass,
        'ClusterRoleBinding',
        'stepwise-break-glass',
      ).subjects,
      [{ kind: 'User', name: 'oncall', apiGroup: 'rbac.authorization.k8s.io' }],
    );

    // The ServiceMonitor selects the metrics Service, and only it.
    const monitor = find<KubeDoc & { spec: { selector: { matchLabels: Record<string, string> } } }>(
      scoped,
      'ServiceMonitor',
      'blue-stepwise-controller',
    );
    assert.equal(monitor.metadata.labels?.release, 'prometheus');
    const services = scoped.filter((d) => d.kind === 'Service');
    const selected = services.filter((s) =>
      Object.entries(monitor.spec.selector.matchLabels).every(
        ([k, v]) => s.metadata.labels?.[k] === v,
      ),
    );
    assert.deepEqual(
      selected.map((s) => s.metadata.name),
      ['blue-stepwise-controller-metrics'],
    );
  });

  it('approval port and notification target values become flags and a ConfigMap the controller reads', async () => {
    const rendered = await render('stepwise', 'ops', {
      'approvals.trustedProxyCIDRs': '{10.0.0.0/8,fd00::/8}',
      'approvals.maxConnections': 64,
      'approvals.linkTTL': '2h',
      'notifications.targets.*.webhooks': '{audit}',
      'notifications.targets.team-a.slackChannels': '{#team-a}',
    });
    const deployment = find<Deployment>(rendered, 'Deployment', 'stepwise-controller');
    const container = controllerContainer(deployment);
    const file = '/etc/stepwise/notification-targets/targets.yaml';
    assert.deepEqual(container.args?.slice(-4), [
      '--trusted-proxy-cidrs=10.0.0.0/8,fd00::/8',
      '--external-max-connections=64',
      '--approval-link-ttl=2h',
      `--notification-targets=${file}`,
    ]);
    assert.ok(
      container.volumeMounts?.some((m) => m.mountPath === '/etc/stepwise/notification-targets'),
    );
    const map = find<KubeDoc & { data: Record<string, string> }>(
      rendered,
      'ConfigMap',
      'stepwise-notification-targets',
    );
    const parsed = parseTargetPolicy(map.data['targets.yaml'] ?? '');
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.policy.get('*'), { slackChannels: [], webhooks: ['audit'] });
    assert.deepEqual(parsed.policy.get('team-a'), { slackChannels: ['#team-a'], webhooks: [] });
    const flags = parseConfig(container.args ?? [], {});
    assert.equal(flags.notificationTargetsFile, file);
    assert.equal(flags.external?.maxConnections, 64);
    assert.equal(flags.approvalLinkTtlMs, 2 * 3_600_000);
  });

  it('a value of the wrong type, an unknown level or a misspelt key fails helm install, naming it', async () => {
    const ns = await testNamespace('helm-schema');
    const cases: [HelmValues, RegExp][] = [
      [{ replicas: 'two' }, /at '\/replicas': got string, want integer/],
      [
        { logLevel: 'verbose' },
        /at '\/logLevel': value must be one of 'debug', 'info', 'warn', 'error'/,
      ],
      [{ 'approvals.port': 'http' }, /at '\/approvals\/port': got string, want integer/],
      [{ replica: '3' }, /additional properties 'replica' not allowed/],
    ];
    for (const [values, message] of cases) {
      const run = await helm(['install', 'stepwise', CHART_DIR, '-n', ns, ...setArgs(values)]);
      assert.notEqual(run.code, 0, JSON.stringify(values));
      assert.match(run.stderr, message);
    }
    // Refused before anything reached the cluster: no release, no Deployment.
    assert.equal((await ok(helm(['list', '-n', ns, '-q']))).trim(), '');
    const deployments = await http.json<{ items: unknown[] }>(
      'GET',
      `/apis/apps/v1/namespaces/${ns}/deployments`,
    );
    assert.equal(deployments.items.length, 0);
  });
});

describe('the chart, installed', () => {
  const imageWork = mkdtempSync(join(tmpdir(), 'stepwise-helm-image-'));
  let image: { tag: string; unpacked: UnpackedImage };
  let containers: RuncContainers;
  before(
    () => {
      const tools = imageTools();
      const summary = runImage();
      image = {
        tag: summary.tag,
        unpacked: unpackImage(tools.crane, summary.archive, join(imageWork, 'image')),
      };
      containers = new RuncContainers(tools.runc, join(imageWork, 'containers'));
    },
    { timeout: 600_000 },
  );
  after(() => {
    containers?.deleteAll();
    rmSync(imageWork, { recursive: true, force: true });
  });

  it('installs, upgrades, walks a canary as installed, and uninstalls', async (t) => {
    const release = `stepwise-${randomBytes(3).toString('hex')}`;
    const controller = `${release}-controller`;
    // What another installer left: the CRDs, server-side applied by a field manager of its own.
    await installCrds();
    const ns = await testNamespace('helm');
    const appNs = await testNamespace('helm-apps');
    const workDir = await mkdtemp(join(tmpdir(), 'stepwise-helm-e2e-'));
    let installed = false;
    t.after(async () => {
      if (installed) await helm(['uninstall', release, '-n', ns, '--wait']);
      await rm(workDir, { recursive: true, force: true });
    });
    const deployment = () =>
      http.json<Deployment>('GET', `/apis/apps/v1/namespaces/${ns}/deployments/${controller}`);

    await t.test(
      'helm install: refuses CRDs it did not create, then adopts them with --take-ownership',
      async () => {
        // The signing key the approval links need, in the Secret the chart mounts.
        await http.json('POST', `/api/v1/namespaces/${ns}/secrets`, {
          metadata: { name: 'stepwise-notifications' },
          data: { 'approval-signing-key': randomBytes(32).toString('base64') },
        });
        const install = [
          'install',
          release,
          CHART_DIR,
          '-n',
          ns,
          ...setArgs({ watchNamespace: appNs }),
          '--wait',
          '--timeout=120s',
        ];
        const refused = await helm(install);
        assert.notEqual(refused.code, 0);
        assert.match(
          refused.stderr,
          /CustomResourceDefinition "[a-z]+\.stepwise\.dev" .*exists and cannot be imported into the current release/,
        );
        await ok(helm([...install, '--take-ownership']));
        installed = true;

        const crd = await http.json<KubeDoc>(
          'GET',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rollouts.stepwise.dev',
        );
        assert.equal(crd.metadata.annotations?.['meta.helm.sh/release-name'], release);
        assert.equal(crd.metadata.annotations?.['helm.sh/resource-policy'], 'keep');
        const d = await deployment();
        assert.equal(d.spec.replicas, 2);
        assert.equal(d.status?.availableReplicas, 2);
        assert.ok(controllerContainer(d).args?.includes(`--namespace=${appNs}`));
      },
    );

    await t.test(
      'helm upgrade: a changed log level and replica count reach the Deployment',
      async () => {
        await ok(
          helm([
            'upgrade',
            release,
            CHART_DIR,
            '-n',
            ns,
            '--reuse-values',
            ...setArgs({ logLevel: 'debug', replicas: 3 }),
            '--wait',
            '--timeout=120s',
          ]),
        );
        const d = await deployment();
        assert.equal(d.spec.replicas, 3);
        const args = controllerContainer(d).args ?? [];
        assert.ok(args.includes('--log-level=debug'), args.join(' '));
        assert.ok(!args.includes('--log-level=info'), args.join(' '));
        assert.ok(args.includes(`--namespace=${appNs}`), 'values kept');
        assert.match(await ok(helm(['history', release, '-n', ns])), /2\s+.*deployed/);
      },
    );

    await t.test(
      'the installed controller, with its ServiceAccount, walks a canary to Healthy',
      async () => {
        const d = await deployment();
        const pod = d.spec.template.spec;
        const container = controllerContainer(d);

        // The ServiceAccount's token, as a kubeconfig: the chart's RBAC is all the process has.
        const token = await http.json<{ status: { token: string } }>(
          'POST',
          `/api/v1/namespaces/${ns}/serviceaccounts/${pod.serviceAccountName}/token`,
          {
            apiVersion: 'authentication.k8s.io/v1',
            kind: 'TokenRequest',
            spec: { expirationSeconds: 3600 },
          },
        );
        const admin = readCredentials(process.env.KUBECONFIG ?? '');
        const kubeconfig = join(workDir, 'service-account.kubeconfig');
        await writeFile(
          kubeconfig,
          dump({
            apiVersion: 'v1',
            kind: 'Config',
            clusters: [
              {
                name: 'local',
                cluster: {
                  server: admin.server,
                  'certificate-authority-data': Buffer.from(admin.ca).toString('base64'),
                },
              },
            ],
            users: [{ name: pod.serviceAccountName, user: { token: token.status.token } }],
            contexts: [{ name: 'sa', context: { cluster: 'local', user: pod.serviceAccountName } }],
            'current-context': 'sa',
          }),
          { mode: 0o600 },
        );
        // Least privilege, as the API server sees it.
        const can = async (...args: string[]) =>
          (
            await kubectl(['auth', 'can-i', ...args], { env: { KUBECONFIG: kubeconfig } })
          ).stdout.trim();
        assert.equal(
          await can('patch', 'rollouts.stepwise.dev', '--subresource=status', '-n', appNs),
          'yes',
        );
        // RBAC grants patch on Rollouts for the workloadRef finalizer; the chart's policy holds
        // it to that (asserted on a live Rollout below).
        assert.equal(await can('patch', 'rollouts.stepwise.dev', '-n', appNs), 'yes');
        assert.equal(await can('delete', 'rollouts.stepwise.dev', '-n', appNs), 'no');
        assert.equal(await can('list', 'rollouts.stepwise.dev', '-n', 'default'), 'no');
        assert.equal(await can('list', 'secrets', '-n', appNs), 'no');
        assert.equal(await can('update', 'leases.coordination.k8s.io', '-n', ns), 'yes');

        // The pod's volumes, as the kubelet would mount them: the Secret's keys as files, read
        // only, at the chart's mountPath; an emptyDir as an empty tmpfs.
        const volumes: ContainerVolume[] = [];
        for (const mount of container.volumeMounts ?? []) {
          const volume = pod.volumes?.find((v) => v.name === mount.name);
          assert.ok(volume, `volume ${mount.name}`);
          if (volume.emptyDir) {
            volumes.push({ destination: mount.mountPath });
            continue;
          }
          assert.ok(volume.secret, `${mount.name}: a Secret or an emptyDir`);
          const secret = await http.json<{ data: Record<string, string> }>(
            'GET',
            `/api/v1/namespaces/${ns}/secrets/${volume.secret.secretName}`,
          );
          const dir = join(workDir, 'volumes', mount.name);
          await mkdir(dir, { recursive: true, mode: 0o755 });
          for (const [key, value] of Object.entries(secret.data)) {
            await writeFile(join(dir, key), Buffer.from(value, 'base64'), { mode: 0o644 });
          }
          volumes.push({ destination: mount.mountPath, source: dir });
        }
        assert.deepEqual(volumes.map((v) => v.destination).sort(), [
          '/etc/stepwise/notifications',
          '/tmp',
        ]);
        // The container shares the host's network: listeners on loopback, on free ports.
        const args = (container.args ?? []).map((arg) => {
          const [flag] = arg.split('=', 1);
          return flag === '--metrics-bind-address' || flag === '--external-bind-address'
            ? `${flag}=127.0.0.1:0`
            : arg;
        });
        // The downward API's values for a pod of this Deployment.
        const podName = `${controller}-local`;
        const env: Record<string, string> = {};
        for (const e of container.env ?? []) {
          if (e.value !== undefined) env[e.name] = e.value;
          else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.namespace') env[e.name] = ns;
          else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name') env[e.name] = podName;
          else assert.fail(`no local value for env ${e.name}`);
        }
        // The image the chart names is the one `make image` built, run under runc.
        assert.equal(container.image, image.tag);
        const running = await new ControllerProcess({
          args,
          launcher: containers.launcher(podName, image.unpacked, { kubeconfig, env, volumes }),
        }).ready();
        try {
          await running.waitForLog((l) => l.msg === 'workers started');
          const lease = await eventually('the leader Lease in the release namespace', async () => {
            const res = await http.request(
              'GET',
              `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/stepwise-controller-leader`,
            );
            return res.status === 200
              ? (JSON.parse(res.body) as { spec: { holderIdentity?: string } })
              : undefined;
          });
          assert.equal(lease.spec.holderIdentity, podName);

          await createRollout(
            appNs,
            rolloutBody('web', {
              strategy: {
                canary: {
                  steps: [
                    { setWeight: 25 },
                    { pause: { duration: '1s' } },
                    { setWeight: 50 },
                    { pause: { duration: '1s' } },
                  ],
                },
              },
            }),
          );
          const first = await waitForRollout(
            appNs,
            'web',
            'first revision Healthy',
            phase('Healthy'),
          );
          await setImage(appNs, 'web', 'app:2');
          const done = await waitForRollout(
            appNs,
            'web',
            'canary promoted',
            phase(
              'Healthy',
              (r) =>
                r.status?.stableRS !== first.status?.stableRS && r.status?.currentStepIndex === 4,
            ),
          );
          assert.deepEqual(await split(appNs, done), [0, 4]);
          await waitForEvents(appNs, ['RolloutStepCompleted', 'RolloutCompleted']);
          await assertFinalizersOnly(appNs, 'web', kubeconfig);
          // The chart's RBAC refused the controller nothing.
          assert.deepEqual(
            running.logs.filter((l) => /forbidden/i.test(JSON.stringify(l))),
            [],
          );
        } finally {
          await running.stop();
        }
      },
    );

    await t.test('helm uninstall removes the release and keeps the CRDs', async () => {
      await ok(helm(['uninstall', release, '-n', ns, '--wait']));
      installed = false;
      const gone = await http.request(
        'GET',
        `/apis/apps/v1/namespaces/${ns}/deployments/${controller}`,
      );
      assert.equal(gone.status, 404);
      const role = await http.request(
        'GET',
        `/apis/rbac.authorization.k8s.io/v1/clusterroles/${controller}`,
      );
      assert.equal(role.status, 404);
      const crd = await http.request(
        'GET',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/rollouts.stepwise.dev',
      );
      assert.equal(crd.status, 200);
    });
  });
});

/** With the controller's ServiceAccount: a change to a Rollout's spec is refused by the chart's
 *  policy; our finalizer is set and taken off (what the workloadRef restore does). */
async function assertFinalizersOnly(namespace: string, name: string, kubeconfig: string) {
  const asController = { env: { KUBECONFIG: kubeconfig } };
  const specPatch = await kubectl(
    ['patch', 'rollouts.stepwise.dev', name, '-n', namespace, '--type=merge', '-p'].concat(
      JSON.stringify({ spec: { paused: true } }),
    ),
    asController,
  );
  assert.notEqual(specPatch.code, 0, 'the controller changed a Rollout spec');
  assert.match(specPatch.stderr, /controller-finalizers-only/);
  const finalizer = (finalizers: string[]) =>
    kubectl(['apply', '--server-side', '--field-manager=stepwise-controller', '-f', '-'], {
      ...asController,
      input: {
        apiVersion: 'stepwise.dev/v1alpha1',
        kind: 'Rollout',
        metadata: { name, namespace, ...(finalizers.length > 0 ? { finalizers } : {}) },
      },
    });
  const added = await finalizer(['stepwise.dev/restore-workload']);
  assert.equal(added.code, 0, added.stderr);
  const removed = await finalizer([]);
  assert.equal(removed.code, 0, removed.stderr);
  const live = await kubectl(['get', 'rollouts.stepwise.dev', name, '-n', namespace, '-o', 'json']);
  const metadata = (JSON.parse(live.stdout) as { metadata: { finalizers?: string[] } }).metadata;
  assert.deepEqual(metadata.finalizers ?? [], []);
}
