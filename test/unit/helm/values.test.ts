// The chart's escape hatches, rendered by the real helm (`helm template`, no cluster): each value
// lands where the controller or Kubernetes reads it, and a wrong one is refused by the schema or
// by the chart with a message that names it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfig } from '../../../src/controller/config.ts';
import { findDoc, render, renderChart } from '../../helm/render.ts';
import type { Doc } from '../../helm/render.ts';

interface EnvVar {
  readonly name: string;
  readonly value?: string;
}
interface Container {
  readonly args: readonly string[];
  readonly env: readonly EnvVar[];
  readonly volumeMounts: readonly { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  readonly containers: readonly Container[];
  readonly volumes: readonly { name: string; configMap?: Record<string, unknown> }[];
  readonly topologySpreadConstraints?: readonly Record<string, unknown>[];
}
interface Deployment extends Doc {
  readonly spec: {
    readonly template: {
      readonly metadata: { readonly annotations?: Record<string, string> };
      readonly spec: PodSpec;
    };
  };
}

const deployment = (docs: readonly Doc[]): Deployment =>
  findDoc<Deployment>(docs, 'Deployment', 'stepwise-controller');
const pod = (docs: readonly Doc[]): PodSpec => deployment(docs).spec.template.spec;
const container = (docs: readonly Doc[]): Container => {
  const c = pod(docs).containers[0];
  assert.ok(c);
  return c;
};
const env = (docs: readonly Doc[]): Record<string, string | undefined> =>
  Object.fromEntries(container(docs).env.map((e) => [e.name, e.value]));

describe('chart values: the controller container', () => {
  it('by default spreads the replicas over nodes, softly, selecting this release only', () => {
    const docs = render();
    assert.deepEqual(pod(docs).topologySpreadConstraints, [
      {
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        labelSelector: {
          matchLabels: {
            'app.kubernetes.io/name': 'stepwise-controller',
            'app.kubernetes.io/instance': 'stepwise',
          },
        },
      },
    ]);
    const none = render({ topologySpreadConstraints: [] });
    assert.equal(pod(none).topologySpreadConstraints, undefined);
    const own = {
      maxSkew: 2,
      topologyKey: 'topology.kubernetes.io/zone',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: { matchLabels: { team: 'a' } },
    };
    assert.deepEqual(pod(render({ topologySpreadConstraints: [own] })).topologySpreadConstraints, [
      own,
    ]);
  });

  it('extraArgs, extraEnv, extraVolumes, extraVolumeMounts and podAnnotations are added, the rest kept', () => {
    const base = render();
    const docs = render({
      extraArgs: ['--workers=20', '--reclaim-memory-after=0'],
      extraEnv: [
        { name: 'HTTPS_PROXY', value: 'http://proxy:3128' },
        { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'vault', key: 'token' } } },
      ],
      extraVolumes: [{ name: 'scratch', emptyDir: {} }],
      extraVolumeMounts: [{ name: 'scratch', mountPath: '/scratch' }],
      podAnnotations: { 'example.com/team': 'platform' },
    });
    const c = container(docs);
    assert.deepEqual(c.args, [...container(base).args, '--workers=20', '--reclaim-memory-after=0']);
    // The controller takes them as its own flags.
    const flags = parseConfig(c.args, {});
    assert.equal(flags.workers, 20);
    assert.equal(flags.reclaimMemoryAfterMs, 0);
    assert.deepEqual(c.env.slice(0, container(base).env.length), container(base).env);
    assert.deepEqual(c.env.slice(-2), [
      { name: 'HTTPS_PROXY', value: 'http://proxy:3128' },
      { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'vault', key: 'token' } } },
    ]);
    assert.deepEqual(pod(docs).volumes.at(-1), { name: 'scratch', emptyDir: {} });
    assert.deepEqual(c.volumeMounts.at(-1), { name: 'scratch', mountPath: '/scratch' });
    assert.equal(
      deployment(docs).spec.template.metadata.annotations?.['example.com/team'],
      'platform',
    );
  });

  it('prometheus.address sets STEPWISE_PROMETHEUS_ADDRESS; unset, nothing', () => {
    assert.equal(env(render()).STEPWISE_PROMETHEUS_ADDRESS, undefined);
    const docs = render({ prometheus: { address: 'http://prometheus.monitoring:9090' } });
    assert.equal(env(docs).STEPWISE_PROMETHEUS_ADDRESS, 'http://prometheus.monitoring:9090');
  });

  it('caBundle mounts the ConfigMap key read-only and points NODE_EXTRA_CA_CERTS at that file', () => {
    assert.equal(env(render()).NODE_EXTRA_CA_CERTS, undefined);
    assert.ok(!pod(render()).volumes.some((v) => v.name === 'ca-bundle'));
    const docs = render({ caBundle: { configMapName: 'corp-ca', key: 'root.pem' } });
    const volume = pod(docs).volumes.find((v) => v.name === 'ca-bundle');
    assert.deepEqual(volume?.configMap, {
      name: 'corp-ca',
      items: [{ key: 'root.pem', path: 'root.pem' }],
    });
    const mount = container(docs).volumeMounts.find((m) => m.name === 'ca-bundle');
    assert.equal(mount?.readOnly, true);
    assert.equal(env(docs).NODE_EXTRA_CA_CERTS, `${mount?.mountPath}/root.pem`);
  });

  it('refuses malformed escape hatches by name', () => {
    const cases: [object, RegExp][] = [
      [{ extraArgs: ['workers=20'] }, /\/extraArgs\/0/],
      [{ extraEnv: [{ value: 'x' }] }, /\/extraEnv\/0.*missing property 'name'/],
      [{ extraVolumeMounts: [{ name: 'x' }] }, /missing property 'mountPath'/],
      [{ prometheus: { address: 'prometheus:9090' } }, /\/prometheus\/address/],
      [{ caBundle: { configMap: 'x' } }, /additional properties 'configMap' not allowed/],
      [{ topologySpreadConstraints: [{ maxSkew: 1 }] }, /missing propert/],
    ];
    for (const [values, message] of cases) {
      const out = renderChart(values);
      assert.notEqual(out.status, 0, JSON.stringify(values));
      assert.match(out.stderr, message, JSON.stringify(values));
    }
  });
});

interface Monitor extends Doc {
  readonly spec: {
    readonly namespaceSelector: { matchNames: string[] };
    readonly endpoints: readonly Record<string, unknown>[];
  };
}

describe('chart values: monitoring and the approval port', () => {
  it('ServiceMonitor: its namespace, annotations and relabelings; it still selects the release namespace', () => {
    const relabel = { action: 'replace', targetLabel: 'cluster', replacement: 'prod' };
    const drop = { action: 'drop', sourceLabels: ['__name__'], regex: 'go_.*' };
    const docs = render({
      metrics: {
        serviceMonitor: {
          enabled: true,
          namespace: 'monitoring',
          annotations: { 'example.com/owner': 'sre' },
          relabelings: [relabel],
          metricRelabelings: [drop],
        },
      },
    });
    const monitor = findDoc<Monitor>(docs, 'ServiceMonitor', 'stepwise-controller');
    assert.equal(monitor.metadata.namespace, 'monitoring');
    assert.equal(monitor.metadata.annotations?.['example.com/owner'], 'sre');
    assert.deepEqual(monitor.spec.namespaceSelector.matchNames, ['ops']);
    assert.deepEqual(monitor.spec.endpoints[0]?.relabelings, [relabel]);
    assert.deepEqual(monitor.spec.endpoints[0]?.metricRelabelings, [drop]);
    const plain = render({ metrics: { serviceMonitor: { enabled: true } } });
    const defaults = findDoc<Monitor>(plain, 'ServiceMonitor', 'stepwise-controller');
    assert.equal(defaults.metadata.namespace, 'ops');
    assert.equal(defaults.spec.endpoints[0]?.relabelings, undefined);
  });

  it('an Ingress to the external Service, on its named port', () => {
    assert.ok(!render().some((d) => d.kind === 'Ingress' || d.kind === 'HTTPRoute'));
    const tls = [{ hosts: ['approve.example.com'], secretName: 'approve-tls' }];
    const docs = render({
      approvals: {
        ingress: {
          enabled: true,
          className: 'nginx',
          host: 'approve.example.com',
          path: '/stepwise',
          annotations: { 'nginx.ingress.kubernetes.io/proxy-body-size': '1m' },
          tls,
        },
      },
    });
    const ingress = findDoc<Doc & { spec: Record<string, unknown> }>(
      docs,
      'Ingress',
      'stepwise-controller-external',
    );
    assert.equal(ingress.spec.ingressClassName, 'nginx');
    assert.deepEqual(ingress.spec.tls, tls);
    assert.deepEqual(ingress.spec.rules, [
      {
        host: 'approve.example.com',
        http: {
          paths: [
            {
              path: '/stepwise',
              pathType: 'Prefix',
              backend: {
                service: { name: 'stepwise-controller-external', port: { name: 'external' } },
              },
            },
          ],
        },
      },
    ]);
    const service = findDoc<Doc & { spec: { ports: { name: string }[] } }>(
      docs,
      'Service',
      'stepwise-controller-external',
    );
    assert.deepEqual(
      service.spec.ports.map((p) => p.name),
      ['external'],
    );
  });

  it('or an HTTPRoute to it from the named Gateways, at approvals.port', () => {
    const parentRefs = [{ name: 'public', namespace: 'gateways' }];
    const docs = render({
      approvals: {
        port: 8443,
        httpRoute: { enabled: true, parentRefs, hostnames: ['approve.example.com'] },
      },
    });
    const route = findDoc<Doc & { spec: Record<string, unknown> }>(
      docs,
      'HTTPRoute',
      'stepwise-controller-external',
    );
    assert.equal(route.apiVersion, 'gateway.networking.k8s.io/v1');
    assert.deepEqual(route.spec, {
      parentRefs,
      hostnames: ['approve.example.com'],
      rules: [{ backendRefs: [{ name: 'stepwise-controller-external', port: 8443 }] }],
    });
  });

  it('refuses a route to a port that is off, and an HTTPRoute with no Gateway', () => {
    const off = renderChart({ approvals: { enabled: false, ingress: { enabled: true } } });
    assert.notEqual(off.status, 0);
    assert.match(
      off.stderr,
      /approvals\.ingress and approvals\.httpRoute .* need approvals\.enabled/,
    );
    const orphan = renderChart({ approvals: { httpRoute: { enabled: true } } });
    assert.notEqual(orphan.status, 0);
    assert.match(orphan.stderr, /approvals\.httpRoute\.parentRefs/);
  });
});
