// The GitOps snippets we ship: argocd-cm.yaml embeds exactly the Lua files (they are the source),
// the Application snippet ignores what stepwise-controller writes on every kind it writes to, and
// the Flux snippet's JSON pointers name the atomic fields those writes sit in.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { load, loadAll } from 'js-yaml';
import { FIELD_MANAGER, POD_TEMPLATE_HASH_LABEL } from '../../../src/api/keys.ts';
import { pinService } from '../../../src/rollout/services.ts';
import {
  ACTIONS,
  ARGOCD_CM,
  ARGOCD_DIR,
  RESOURCE_KEY,
  readLuaSources,
  renderArgocdCm,
} from '../../lua/argocd-cm.ts';

const FLUX_DIR = join(ARGOCD_DIR, '..', 'flux');
const REGENERATE = 'run `node test/lua/argocd-cm.ts --write`';

interface ArgocdCm {
  data: Record<string, string>;
}
interface ActionsConfig {
  'discovery.lua': string;
  definitions: { name: string; 'action.lua': string }[];
}

describe('deploy/argocd/argocd-cm.yaml', () => {
  const text = readFileSync(ARGOCD_CM, 'utf8');
  const cm = load(text) as ArgocdCm;
  const src = readLuaSources();

  it('embeds health.lua exactly', () => {
    assert.equal(cm.data[`resource.customizations.health.${RESOURCE_KEY}`], src.health, REGENERATE);
  });

  it('embeds discovery.lua and every action.lua exactly, under their names', () => {
    const raw = cm.data[`resource.customizations.actions.${RESOURCE_KEY}`];
    assert.equal(typeof raw, 'string', 'the actions key holds a YAML string, as argocd-cm wants');
    const actions = load(raw ?? '') as ActionsConfig;
    assert.equal(actions['discovery.lua'], src.discovery, REGENERATE);
    assert.deepEqual(
      actions.definitions.map((d) => d.name),
      [...ACTIONS],
    );
    for (const d of actions.definitions) {
      assert.equal(d['action.lua'], src.actions[d.name as (typeof ACTIONS)[number]], REGENERATE);
    }
  });

  it('is what the generator writes (no hand edits)', () => {
    assert.equal(text, renderArgocdCm(src), REGENERATE);
  });

  it('has no other keys', () => {
    assert.deepEqual(Object.keys(cm.data).sort(), [
      `resource.customizations.actions.${RESOURCE_KEY}`,
      `resource.customizations.health.${RESOURCE_KEY}`,
    ]);
  });
});

interface IgnoreDifference {
  group: string;
  kind: string;
  managedFieldsManagers?: string[];
  jqPathExpressions?: string[];
}
interface Application {
  apiVersion: string;
  kind: string;
  spec: { ignoreDifferences: IgnoreDifference[]; syncPolicy: { syncOptions: string[] } };
}

/** Every kind whose fields the controller writes (or will, with traffic routing). */
const SHARED_KINDS = [
  ['', 'Service'],
  ['gateway.networking.k8s.io', 'HTTPRoute'],
  ['networking.istio.io', 'VirtualService'],
  ['networking.istio.io', 'DestinationRule'],
  ['split.smi-spec.io', 'TrafficSplit'],
] as const;

describe('deploy/argocd/application-snippet.yaml', () => {
  const app = load(
    readFileSync(join(ARGOCD_DIR, 'application-snippet.yaml'), 'utf8'),
  ) as Application;

  it('is an Argo CD Application', () => {
    assert.equal(app.apiVersion, 'argoproj.io/v1alpha1');
    assert.equal(app.kind, 'Application');
  });

  it('ignores what stepwise-controller owns on every shared kind, with jq paths beside', () => {
    const entries = app.spec.ignoreDifferences;
    assert.deepEqual(
      entries.map((e) => [e.group, e.kind]),
      SHARED_KINDS.map(([g, k]) => [g, k]),
    );
    for (const e of entries) {
      assert.deepEqual(e.managedFieldsManagers, [FIELD_MANAGER], e.kind);
      assert.ok((e.jqPathExpressions ?? []).length > 0, `${e.kind} has jqPathExpressions`);
      for (const jq of e.jqPathExpressions ?? []) assert.match(jq, /^\.spec\./, jq);
    }
  });

  it('names the exact fields the controller writes', () => {
    const jq = (kind: string) =>
      app.spec.ignoreDifferences.find((e) => e.kind === kind)?.jqPathExpressions;
    assert.ok(jq('Service')?.includes(`.spec.selector["${POD_TEMPLATE_HASH_LABEL}"]`));
    assert.ok(jq('HTTPRoute')?.includes('.spec.rules[].backendRefs[].weight'));
    assert.ok(jq('VirtualService')?.includes('.spec.http[].route[].weight'));
    assert.ok(jq('TrafficSplit')?.includes('.spec.backends[].weight'));
  });

  it('syncs with RespectIgnoreDifferences and server-side apply', () => {
    assert.deepEqual(app.spec.syncPolicy.syncOptions, [
      'RespectIgnoreDifferences=true',
      'ServerSideApply=true',
    ]);
  });
});

interface FluxIgnoreRule {
  paths: string[];
  target: { group?: string; version?: string; kind?: string; name?: string };
}
interface FluxKustomization {
  apiVersion: string;
  kind: string;
  spec: { ignore: FluxIgnoreRule[] };
}

/** RFC 6901: `/`-separated tokens, `~` only as `~0` or `~1`. */
function pointerTokens(pointer: string): string[] {
  assert.match(pointer, /^(\/([^~/]|~[01])*)+$/, `${pointer} is a JSON pointer`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

describe('deploy/flux/kustomization-snippet.yaml', () => {
  const docs = loadAll(readFileSync(join(FLUX_DIR, 'kustomization-snippet.yaml'), 'utf8'));
  const ks = docs[0] as FluxKustomization;
  const rule = (group: string, kind: string): FluxIgnoreRule | undefined =>
    ks.spec.ignore.find(
      (r) =>
        r.target.kind !== undefined &&
        new RegExp(r.target.kind).test(kind) &&
        new RegExp(r.target.group ?? '').test(group),
    );

  it('is a Flux Kustomization with one ignore rule per shared kind', () => {
    assert.equal(docs.length, 1);
    assert.equal(ks.apiVersion, 'kustomize.toolkit.fluxcd.io/v1');
    assert.equal(ks.kind, 'Kustomization');
    for (const [group, kind] of SHARED_KINDS) assert.ok(rule(group, kind), `${group}/${kind}`);
    assert.equal(ks.spec.ignore.length, SHARED_KINDS.length);
  });

  it('targets by anchored group and kind regexes (Service must not match ServiceAccount)', () => {
    assert.equal(rule('', 'ServiceAccount'), undefined);
    assert.equal(rule('serving.knative.dev', 'Service'), undefined);
    assert.equal(rule('gateway.networking.k8s.io', 'GRPCRoute'), undefined);
    for (const r of ks.spec.ignore) {
      for (const re of [r.target.group, r.target.kind]) assert.match(re ?? '', /^\^.*\$$/);
    }
  });

  it('ignores the atomic fields the controller writes, as JSON pointers', () => {
    const paths = (kind: string, group: string) => rule(group, kind)?.paths ?? [];
    for (const r of ks.spec.ignore) for (const p of r.paths) pointerTokens(p);
    assert.deepEqual(paths('Service', ''), ['/spec/selector']);
    assert.deepEqual(paths('HTTPRoute', 'gateway.networking.k8s.io'), ['/spec/rules']);
    assert.deepEqual(paths('VirtualService', 'networking.istio.io'), [
      '/spec/http',
      '/spec/tls',
      '/spec/tcp',
    ]);
    assert.deepEqual(paths('DestinationRule', 'networking.istio.io'), ['/spec/subsets']);
    assert.deepEqual(paths('TrafficSplit', 'split.smi-spec.io'), ['/spec/backends']);
  });

  it("names the Services of both strategies in the Service rule (canary's and blue-green's)", () => {
    const name = new RegExp(rule('', 'Service')?.target.name ?? '^$');
    for (const service of ['web-canary', 'web-stable', 'web-active', 'web-preview']) {
      assert.match(service, name);
    }
    assert.doesNotMatch('web-active-old', name);
  });

  it('covers everything the controller applies to a Service outside metadata', () => {
    const applied = pinService(
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web-stable' },
        spec: { selector: { app: 'web' } },
      },
      'h2',
      { metadata: { name: 'web' } },
    );
    assert.ok(applied);
    const ignored = rule('', 'Service')?.paths.map(pointerTokens) ?? [];
    const leaves = (o: unknown, path: string[] = []): string[][] =>
      typeof o === 'object' && o !== null
        ? Object.entries(o).flatMap(([k, v]) => leaves(v, [...path, k]))
        : [path];
    for (const leaf of leaves(applied.body.spec, ['spec'])) {
      assert.ok(
        ignored.some((p) => p.every((t, i) => leaf[i] === t)),
        `/${leaf.join('/')} is under an ignored path`,
      );
    }
  });
});

describe('deploy/flux/README.md', () => {
  const readme = readFileSync(join(FLUX_DIR, 'README.md'), 'utf8');
  it('states the trade-off and the controller restoring within about a second', () => {
    assert.match(readme, /kustomize\.toolkit\.fluxcd\.io\/ssa: Merge/);
    assert.match(readme, /atomic/);
    assert.match(readme, /within about a\s+second/);
  });
});
