// With --api-group=argoproj.io the controller makes on Argo's group the requests it makes on ours
// for the kinds both define (src/kube/argo-wire): deploy/rbac/argo-in-place.yaml must grant on
// argoproj.io exactly what deploy/rbac/rbac.yaml grants on stepwise.dev for those kinds, no more.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { ARGO_CONTROLLER_LEASE } from '../../src/api/index.ts';
import { Resources } from '../../src/kube/index.ts';
import { ARGO_SERVED_KINDS } from '../../src/kube/argo-wire/index.ts';
import { REPO_ROOT } from '../cluster/state.ts';

interface Rule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
}
interface Doc {
  readonly kind?: string;
  readonly metadata?: { readonly name?: string };
  readonly rules?: readonly Rule[];
  readonly subjects?: readonly unknown[];
}

const docsOf = (file: string): Doc[] =>
  loadAll(readFileSync(join(REPO_ROOT, 'deploy', 'rbac', file), 'utf8')) as Doc[];
const role = (docs: Doc[], name: string): Doc => {
  const found = docs.find((d) => d.kind === 'ClusterRole' && d.metadata?.name === name);
  assert.ok(found, `ClusterRole ${name}`);
  return found;
};

/** `resource verb` pairs a role grants in `group`, for the plurals given (and their /status). */
function grants(r: Doc, group: string, plurals: ReadonlySet<string>): string[] {
  return (r.rules ?? [])
    .filter((rule) => rule.apiGroups?.includes(group))
    .flatMap((rule) =>
      (rule.resources ?? [])
        .filter((res) => plurals.has(res.split('/')[0] ?? ''))
        .flatMap((res) => (rule.verbs ?? []).map((v) => `${res} ${v}`)),
    )
    .sort();
}

const served = new Set(
  Object.values(Resources)
    .filter((t) => ARGO_SERVED_KINDS.has(t.kind))
    .map((t) => t.plural),
);

describe('RBAC for serving argoproj.io in place', () => {
  it('grants on argoproj.io what the controller holds on stepwise.dev for the kinds served', () => {
    const ours = grants(role(docsOf('rbac.yaml'), 'stepwise-controller'), 'stepwise.dev', served);
    const inPlace = role(docsOf('argo-in-place.yaml'), 'stepwise-controller-argoproj');
    assert.ok(ours.length > 0);
    assert.deepEqual(grants(inPlace, 'argoproj.io', served), ours);
    const beyond = (inPlace.rules ?? []).filter((r) => !r.apiGroups?.includes('argoproj.io'));
    assert.deepEqual(
      beyond,
      [
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          resourceNames: [ARGO_CONTROLLER_LEASE.split('/')[1]],
          verbs: ['get', 'list', 'watch'],
        },
      ],
      "beyond argoproj.io: reading Argo's controller's Lease, that one by name, nothing else",
    );
    assert.deepEqual(
      (inPlace.rules ?? [])
        .filter((r) => r.apiGroups?.includes('argoproj.io'))
        .flatMap((r) => r.resources ?? [])
        .filter((res) => !served.has(res.split('/')[0] ?? '')),
      [],
      'no other argoproj.io kind (Experiments)',
    );
  });

  it('is bound to the controller ServiceAccount of rbac.yaml', () => {
    const binding = docsOf('argo-in-place.yaml').find((d) => d.kind === 'ClusterRoleBinding');
    const ourBinding = docsOf('rbac.yaml').find(
      (d) => d.kind === 'ClusterRoleBinding' && d.metadata?.name === 'stepwise-controller',
    );
    assert.deepEqual(binding?.subjects, ourBinding?.subjects);
  });
});
