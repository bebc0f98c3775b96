// docs/migration.md "From a Deployment": the command block there, run as written (bash, kubectl
// and the plugin on PATH, the namespace in the kubeconfig's context) against a Deployment `web`,
// with a controller confined to that namespace (the manifest carries no instance label).
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace } from '../cluster/testing.ts';
import { startController } from './support/controller.ts';
import type { ControllerProcess } from './support/controller.ts';
import { runCommand } from './support/kubectl.ts';
import { PLUGIN_DIR } from './support/plugin.ts';
import { getRollout, installCrds } from './support/rollouts.ts';
import {
  applyDeployment,
  deploymentAt,
  deploymentBody,
  getDeployment,
  waitForDeployment,
} from './support/workloads.ts';

const MARKER = '<!-- migrating-from-a-deployment:';

/** The sh block after the marker in docs/migration.md, exactly as it is there. */
function readmeBlock(): string {
  const readme = readFileSync(join(REPO_ROOT, 'docs', 'migration.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  assert.ok(at >= 0, 'docs/migration.md has the From a Deployment block');
  const start = readme.indexOf('```sh\n', at) + '```sh\n'.length;
  return readme.slice(start, readme.indexOf('\n```', start) + 1);
}

const dir = mkdtempSync(join(tmpdir(), 'stepwise-wref-readme-'));
let controller: ControllerProcess | undefined;
after(async () => {
  await controller?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/migration.md: from a Deployment', () => {
  it('the command block runs as written: Healthy, the Deployment at 0 with 2 recorded, a canary through the Deployment’s template', async () => {
    await installCrds();
    const ns = await testNamespace('wref-readme');
    controller = await startController({ args: [`--namespace=${ns}`] });
    await applyDeployment(ns, deploymentBody('web', 2));
    await waitForDeployment(ns, 'web', 'Deployment up', deploymentAt(2));

    const kubeconfig = join(dir, 'kubeconfig');
    copyFileSync(process.env.KUBECONFIG ?? '', kubeconfig);
    const env = {
      KUBECONFIG: kubeconfig,
      PATH: `${PLUGIN_DIR}${delimiter}${process.env.PATH ?? ''}`,
    };
    const context = await runCommand(
      'kubectl',
      ['config', 'set-context', '--current', `--namespace=${ns}`],
      { env },
    );
    assert.equal(context.code, 0, context.stderr);

    const run = await runCommand('bash', ['-euo', 'pipefail', '-c', readmeBlock()], { env });
    assert.equal(run.code, 0, `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
    assert.match(run.stdout, /^0 2$/m, 'the Deployment at 0, its count before recorded');

    const d = await getDeployment(ns, 'web');
    assert.equal(d.spec?.replicas, 0);
    assert.equal(d.spec?.template.spec?.containers[0]?.image, 'registry.invalid/app:2');
    const r = await getRollout(ns, 'web');
    assert.equal(r.status?.phase, 'Healthy');
    assert.equal(r.status?.stableRS, r.status?.currentPodHash);
    assert.equal(r.spec.template, undefined, 'set image wrote the Deployment, not the Rollout');
  });
});
