// `kubectl explain` shows a field's description from the CRD's openAPIV3Schema: every field a user
// writes should have one (Argo Rollouts describes 96 % of its Rollout's). The share is computed
// over the spec's fields, however deep (list items and map values included), but not inside
// spec.template, whose fields are Kubernetes' PodTemplateSpec and explained by Kubernetes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allCrds } from '../../../src/api/crd.ts';

const THRESHOLD = 0.95;

interface SchemaNode {
  readonly description?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode | boolean;
}

interface Coverage {
  readonly fields: number;
  readonly undescribed: readonly string[];
}

/** Every property under `node` with its path (`spec.steps[].pause`), and whether it is described. */
function fieldsOf(node: SchemaNode, path: string, skip: readonly string[]): [string, boolean][] {
  if (skip.includes(path)) return [];
  const out: [string, boolean][] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const at = `${path}.${name}`;
    out.push([at, typeof child.description === 'string' && child.description.trim() !== '']);
    out.push(...fieldsOf(child, at, skip));
  }
  if (node.items) out.push(...fieldsOf(node.items, `${path}[]`, skip));
  if (typeof node.additionalProperties === 'object') {
    out.push(...fieldsOf(node.additionalProperties, `${path}{}`, skip));
  }
  return out;
}

function coverage(root: SchemaNode, part: string, skip: readonly string[] = []): Coverage {
  const fields = fieldsOf(root, part, skip);
  return {
    fields: fields.length,
    undescribed: fields.filter(([, described]) => !described).map(([path]) => path),
  };
}

function share(c: Coverage): number {
  return c.fields === 0 ? 1 : (c.fields - c.undescribed.length) / c.fields;
}

interface Crd {
  spec: {
    names: { kind: string };
    versions: { schema: { openAPIV3Schema: { properties: Record<string, SchemaNode> } } }[];
  };
}

function schemaOf(kind: string): Record<string, SchemaNode> {
  const crd = [...allCrds().values()].find((c) => (c as unknown as Crd).spec.names.kind === kind);
  assert.ok(crd, `a CRD for ${kind}`);
  const version = (crd as unknown as Crd).spec.versions[0];
  assert.ok(version);
  return version.schema.openAPIV3Schema.properties;
}

const KINDS = [
  'Rollout',
  'AnalysisTemplate',
  'ClusterAnalysisTemplate',
  'AnalysisRun',
  'RolloutApproval',
] as const;

for (const kind of KINDS) {
  test(`kubectl explain describes at least 95 % of the ${kind}'s spec fields`, (t) => {
    const { spec, status } = schemaOf(kind);
    assert.ok(spec, `${kind} has a spec`);
    const c = coverage(spec, 'spec', ['spec.template']);
    assert.ok(c.fields > 0, 'the walk found fields');
    const percent = (share(c) * 100).toFixed(1);
    t.diagnostic(`${kind} spec: ${percent} % of ${c.fields} fields described`);
    if (status) {
      // Not required (the controller writes it), but shown.
      const s = coverage(status, 'status');
      t.diagnostic(`${kind} status: ${(share(s) * 100).toFixed(1)} % of ${s.fields} fields`);
    }
    assert.ok(
      share(c) >= THRESHOLD,
      `${kind}: ${percent} % of ${c.fields} spec fields described; without a description:\n  ` +
        c.undescribed.join('\n  '),
    );
  });
}

test('the walk counts fields in list items and map values and skips spec.template', () => {
  const spec: SchemaNode = {
    properties: {
      template: { description: 'pod', properties: { spec: {} } },
      steps: {
        description: 'steps',
        items: { properties: { pause: {}, setWeight: { description: 'weight' } } },
      },
      headers: { additionalProperties: { properties: { exact: { description: 'x' } } } },
    },
  };
  const c = coverage(spec, 'spec', ['spec.template']);
  assert.deepEqual(c, {
    fields: 6,
    undescribed: ['spec.steps[].pause', 'spec.headers'],
  });
  assert.equal(share(c), 4 / 6);
});
