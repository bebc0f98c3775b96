// One Argo Rollouts release for the whole test tree: the controller the e2e tests build
// (test/cluster/argo/go.mod) and the module the router CRDs and Argo's Grafana dashboard are read
// from. Two releases would mean two module downloads on a clean run and two Argos to compare with.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { ARGO_ROLLOUTS_MODULE } from '../../cluster/router-crds.ts';

it("the router CRDs' Argo module is the release the tests build Argo's controller from", () => {
  const goMod = readFileSync(new URL('../../cluster/argo/go.mod', import.meta.url), 'utf8');
  const built = /^require github\.com\/argoproj\/argo-rollouts (v\S+)$/m.exec(goMod)?.[1];
  assert.ok(built, 'test/cluster/argo/go.mod requires github.com/argoproj/argo-rollouts');
  assert.equal(ARGO_ROLLOUTS_MODULE, `github.com/argoproj/argo-rollouts@${built}`);
});
