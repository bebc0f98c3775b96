// spec.template is schemaless in the CRD; the controller and `kubectl stepwise lint` check it as a
// Kubernetes PodTemplateSpec, naming the exact path of a field Kubernetes would refuse.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { podTemplateProblems } from '../../../src/api/pod-template.ts';
import { rolloutSpecProblems, rolloutTemplateProblems } from '../../../src/api/index.ts';
import { renderPodTemplateFields, typeRef } from '../../../src/api/pod-template-gen.ts';

const container = { name: 'web', image: 'registry.example/web:1.2.3' };
const templateWith = (spec: Record<string, unknown>, metadata: unknown = { labels: {} }) => ({
  metadata,
  spec: { containers: [container], ...spec },
});

test('a misspelt container field is refused with its path and the field meant', () => {
  const template = templateWith({
    containers: [container, { ...container, name: 'sidecar', imagePullPolicyy: 'Always' }],
  });
  assert.deepEqual(podTemplateProblems(template), [
    'spec.template.spec.containers[1].imagePullPolicyy: unknown field in a Container (did you mean imagePullPolicy?)',
  ]);
});

test('a misspelt pod field is refused', () => {
  assert.deepEqual(podTemplateProblems(templateWith({ serviceAcountName: 'web' })), [
    'spec.template.spec.serviceAcountName: unknown field in a PodSpec (did you mean serviceAccountName?)',
  ]);
});

test('a misspelt probe field is refused, deep in the container', () => {
  const probe = { httpGet: { path: '/healthz', port: 8080 }, initialDelaySecond: 5 };
  const template = templateWith({ containers: [{ ...container, readinessProbe: probe }] });
  assert.deepEqual(podTemplateProblems(template), [
    'spec.template.spec.containers[0].readinessProbe.initialDelaySecond: unknown field in a Probe (did you mean initialDelaySeconds?)',
  ]);
});

test('an unknown top-level template key is refused (containers belong under spec)', () => {
  assert.deepEqual(podTemplateProblems({ metadata: {}, containers: [container] }), [
    'spec.template.containers: unknown field in a PodTemplateSpec (Kubernetes release-1.36)',
  ]);
});

test('a case slip is suggested; a name far from any field gets no guess', () => {
  assert.deepEqual(podTemplateProblems(templateWith({ NodeSelector: {}, flavour: 'x' })), [
    'spec.template.spec.NodeSelector: unknown field in a PodSpec (did you mean nodeSelector?)',
    'spec.template.spec.flavour: unknown field in a PodSpec (Kubernetes release-1.36)',
  ]);
});

test('a list or an object where Kubernetes has the other is refused', () => {
  assert.deepEqual(
    podTemplateProblems(
      templateWith({ containers: container, securityContext: [], tolerations: [{ key: {} }] }),
    ),
    [
      'spec.template.spec.containers: must be a list',
      'spec.template.spec.securityContext: must be an object (PodSecurityContext)',
      'spec.template.spec.tolerations[0].key: must be a string',
    ],
  );
});

test('a valid complex template passes: volumes, probes, quantities, security, affinity', () => {
  const template = {
    metadata: {
      labels: { app: 'web', 'app.kubernetes.io/name': 'web' },
      annotations: { 'prometheus.io/scrape': 'true' },
      creationTimestamp: null,
    },
    spec: {
      serviceAccountName: 'web',
      terminationGracePeriodSeconds: 30,
      securityContext: {
        runAsNonRoot: true,
        fsGroup: 2000,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      initContainers: [{ name: 'migrate', image: 'registry.example/migrate:1', args: ['up'] }],
      containers: [
        {
          ...container,
          imagePullPolicy: 'IfNotPresent',
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'MODE', value: 'production' },
            { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'web', key: 'token' } } },
          ],
          envFrom: [{ configMapRef: { name: 'web' } }],
          resources: {
            requests: { cpu: '100m', memory: '128Mi' },
            limits: { cpu: 1, memory: '1Gi', 'nvidia.com/gpu': 1 },
          },
          readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 5 },
          livenessProbe: { httpGet: { path: '/live', port: 8080, scheme: 'HTTP' } },
          startupProbe: { tcpSocket: { port: 8080 }, failureThreshold: 30 },
          lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
          volumeMounts: [
            { name: 'config', mountPath: '/etc/web', readOnly: true },
            { name: 'cache', mountPath: '/cache' },
          ],
        },
      ],
      volumes: [
        { name: 'config', configMap: { name: 'web', items: [{ key: 'a', path: 'a.yaml' }] } },
        { name: 'cache', emptyDir: { sizeLimit: '1Gi' } },
        { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
        { name: 'secret', secret: { secretName: 'web', defaultMode: 0o400 } },
      ],
      affinity: {
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                topologyKey: 'kubernetes.io/hostname',
                labelSelector: { matchLabels: { app: 'web' } },
              },
            },
          ],
        },
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              {
                matchExpressions: [
                  { key: 'kubernetes.io/arch', operator: 'In', values: ['amd64'] },
                ],
              },
            ],
          },
        },
      },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: 'ScheduleAnyway',
          labelSelector: { matchLabels: { app: 'web' } },
        },
      ],
      nodeSelector: { 'kubernetes.io/os': 'linux' },
      imagePullSecrets: [{ name: 'registry' }],
    },
  };
  assert.deepEqual(podTemplateProblems(template), []);
});

test('a template with many unknown fields lists ten and counts the rest', () => {
  const spec = Object.fromEntries(Array.from({ length: 13 }, (_, i) => [`zz${i}`, i]));
  const problems = podTemplateProblems(templateWith(spec));
  assert.equal(problems.length, 11);
  assert.equal(problems[10], 'spec.template: 3 more problems');
});

test('a Rollout spec: only the inline template is checked, and the schema check stays as it was', () => {
  const spec = {
    selector: { matchLabels: { app: 'web' } },
    template: templateWith({ containers: [{ ...container, imagePullPolicyy: 'Always' }] }),
    strategy: { canary: {} },
  };
  assert.deepEqual(rolloutSpecProblems(spec), []);
  assert.deepEqual(rolloutTemplateProblems(spec), [
    'spec.template.spec.containers[0].imagePullPolicyy: unknown field in a Container (did you mean imagePullPolicy?)',
  ]);
  const { template: _template, ...referenced } = spec;
  const workloadRef = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
  assert.deepEqual(rolloutTemplateProblems({ ...referenced, workloadRef }), []);
  assert.deepEqual(rolloutTemplateProblems('not a spec'), []);
});

test("client-node's type names become references: lists, maps, models", () => {
  assert.equal(typeRef('Array<V1Container>'), '[]V1Container');
  assert.equal(typeRef('{ [key: string]: string; }'), '{}string');
  assert.equal(typeRef('{ [key: string]: Array<string>; }'), '{}[]string');
  assert.equal(typeRef('V1PodSpec'), 'V1PodSpec');
});

test("the committed field tree is exactly what client-node's models give (run `make crds`)", () => {
  const committed = readFileSync(
    join(import.meta.dirname, '..', '..', '..', 'src', 'api', 'pod-template-fields.ts'),
    'utf8',
  );
  assert.equal(committed, renderPodTemplateFields());
});
