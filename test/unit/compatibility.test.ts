// docs/compatibility.md against the CRDs the API server enforces: what the page calls refused has
// no place in the schema (so a manifest with it is rejected at apply time), and what it calls
// supported does. A field added to or dropped from src/api without the page fails here.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import { REPO_ROOT } from '../cluster/state.ts';

interface Schema {
  readonly properties?: Record<string, Schema>;
  readonly items?: Schema;
  readonly oneOf?: readonly Schema[];
  readonly anyOf?: readonly Schema[];
}

function specSchema(file: string): Schema {
  const crd = load(readFileSync(join(REPO_ROOT, 'deploy', 'crds', file), 'utf8')) as {
    spec: { versions: { schema: { openAPIV3Schema: Schema } }[] };
  };
  const root = crd.spec.versions[0]?.schema.openAPIV3Schema;
  assert.ok(root?.properties?.['spec'], `${file}: no spec`);
  return root.properties['spec'];
}

/** The schema at a dotted path (`[]` steps into array items); undefined where it has no place. */
function at(schema: Schema | undefined, path: string): Schema | undefined {
  let node = schema;
  for (const part of path.split('.')) {
    if (node === undefined) return undefined;
    const key = part.replace(/\[\]$/, '');
    const candidates = [node, ...(node.oneOf ?? []), ...(node.anyOf ?? [])];
    node = candidates.map((c) => c.properties?.[key]).find((c) => c !== undefined);
    if (node && part.endsWith('[]')) node = node.items;
  }
  return node;
}

const ROLLOUT = specSchema('rollouts.stepwise.dev.yaml');
const TEMPLATE = specSchema('analysistemplates.stepwise.dev.yaml');
const PAGE = readFileSync(join(REPO_ROOT, 'docs', 'compatibility.md'), 'utf8');

/** Rows of the page's tables whose status column says `status`. */
const rows = (status: string): string[] =>
  PAGE.split('\n').filter((line) => new RegExp(`^\\|[^|]*\\|\\s*${status}\\s*\\|`).test(line));

const REFUSED: readonly [Schema, string, string][] = [
  [ROLLOUT, 'rollbackWindow', '`rollbackWindow`'],
  [ROLLOUT, 'strategy.canary.steps[].experiment', 'step `experiment`'],
  [ROLLOUT, 'strategy.canary.steps[].plugin', 'step `plugin`'],
  [ROLLOUT, 'strategy.canary.antiAffinity', '`antiAffinity` (on a canary)'],
  [ROLLOUT, 'strategy.canary.pingPong', '`pingPong`'],
  [ROLLOUT, 'strategy.canary.minPodsPerReplicaSet', '`minPodsPerReplicaSet`'],
  [ROLLOUT, 'strategy.canary.replicaProgressThreshold', '`replicaProgressThreshold`'],
  [ROLLOUT, 'strategy.canary.trafficRouting.alb', 'AWS ALB'],
  [ROLLOUT, 'strategy.canary.trafficRouting.ambassador', 'Ambassador'],
  [ROLLOUT, 'strategy.canary.trafficRouting.appMesh', 'App Mesh'],
  [ROLLOUT, 'strategy.canary.trafficRouting.traefik', 'Traefik'],
  [ROLLOUT, 'strategy.canary.trafficRouting.apisix', 'APISIX'],
  [TEMPLATE, 'templates', '`AnalysisTemplate.spec.templates`'],
  ...[
    'datadog',
    'newRelic',
    'cloudWatch',
    'kayenta',
    'wavefront',
    'graphite',
    'influxdb',
    'skywalking',
  ].map((p): [Schema, string, string] => [TEMPLATE, `metrics[].provider.${p}`, `\`${p}\``]),
];

const SUPPORTED: readonly [Schema, string][] = [
  [ROLLOUT, 'workloadRef'],
  [ROLLOUT, 'restartAt'],
  [ROLLOUT, 'progressDeadlineAbort'],
  [ROLLOUT, 'strategy.blueGreen.antiAffinity'],
  [ROLLOUT, 'strategy.blueGreen.prePromotionAnalysis'],
  [ROLLOUT, 'strategy.canary.steps[].setMirrorRoute'],
  [ROLLOUT, 'strategy.canary.steps[].approval'],
  [ROLLOUT, 'strategy.canary.dynamicStableScale'],
  [ROLLOUT, 'strategy.canary.analysis.analysisRunMetadata'],
  [ROLLOUT, 'strategy.canary.trafficRouting.gatewayAPI'],
  [ROLLOUT, 'strategy.canary.trafficRouting.istio'],
  [ROLLOUT, 'strategy.canary.trafficRouting.nginx'],
  [ROLLOUT, 'strategy.canary.trafficRouting.smi'],
  [TEMPLATE, 'metrics[].provider.prometheus'],
  [TEMPLATE, 'metrics[].provider.web'],
  [TEMPLATE, 'metrics[].provider.job'],
];

describe('docs/compatibility.md against the CRD schemas', () => {
  it('the path reader finds what is there (so "absent" below means absent)', () => {
    assert.ok(at(ROLLOUT, 'strategy.canary.steps[].setWeight'));
    assert.equal(at(ROLLOUT, 'strategy.canary.steps[].nothingLikeThis'), undefined);
  });

  it('every feature the page refuses is refused by the schema and named in a refused row', () => {
    const refused = rows('refused').join('\n');
    for (const [schema, path, name] of REFUSED) {
      assert.equal(at(schema, path), undefined, `${path} is in the schema: the page says refused`);
      assert.ok(refused.includes(name), `no refused row names ${name}`);
    }
  });

  it('what the page supports is in the schema', () => {
    for (const [schema, path] of SUPPORTED)
      assert.ok(at(schema, path), `${path} not in the schema`);
  });
});
