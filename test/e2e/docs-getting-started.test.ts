// docs/getting-started.md: its two command blocks, run as written (bash, kubectl and the plugin on
// PATH, the namespace in the kubeconfig's context), with a controller confined to that namespace
// (the manifests carry no instance label). kwok's pods need no image, so the demo image's tags
// only have to differ.
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
import { getRollout, installCrds, replicaSets } from './support/rollouts.ts';

/** The sh block after `<!-- MARKER:` in docs/getting-started.md, exactly as it is there. */
function block(marker: string): string {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'getting-started.md'), 'utf8');
  const at = page.indexOf(`<!-- ${marker}:`);
  assert.ok(at >= 0, `docs/getting-started.md has the ${marker} block`);
  const start = page.indexOf('```sh\n', at) + '```sh\n'.length;
  return page.slice(start, page.indexOf('\n```', start) + 1);
}

const imageOf = (r: Awaited<ReturnType<typeof getRollout>>): string | undefined =>
  r.spec.template?.spec?.containers[0]?.image;

const dir = mkdtempSync(join(tmpdir(), 'stepwise-getting-started-'));
let controller: ControllerProcess | undefined;
after(async () => {
  await controller?.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/getting-started.md', () => {
  it('the blocks run as written: blue, a canary to yellow promoted, red aborted and undone', async () => {
    await installCrds();
    const ns = await testNamespace('getting-started');
    controller = await startController({ args: [`--namespace=${ns}`] });
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
    const bash = (script: string) =>
      runCommand('bash', ['-euo', 'pipefail', '-c', script], { env });

    const canary = await bash(block('getting-started'));
    assert.equal(canary.code, 0, `stdout:\n${canary.stdout}\nstderr:\n${canary.stderr}`);
    const promoted = await getRollout(ns, 'rollouts-demo');
    assert.equal(promoted.status?.phase, 'Healthy');
    assert.equal(imageOf(promoted), 'argoproj/rollouts-demo:yellow');
    assert.equal(promoted.status?.stableRS, promoted.status?.currentPodHash);
    const yellow = promoted.status?.stableRS;

    const abort = await bash(block('getting-started-abort'));
    assert.equal(abort.code, 0, `stdout:\n${abort.stdout}\nstderr:\n${abort.stderr}`);
    assert.match(abort.stdout, /aborted/);
    const back = await getRollout(ns, 'rollouts-demo');
    assert.equal(back.status?.phase, 'Healthy');
    assert.equal(imageOf(back), 'argoproj/rollouts-demo:yellow');
    assert.equal(back.status?.stableRS, yellow, 'yellow stayed the stable throughout');
    const serving = (await replicaSets(ns, 'rollouts-demo')).filter(
      (rs) => (rs.spec?.replicas ?? 0) > 0,
    );
    assert.deepEqual(
      serving.map((rs) => [rs.metadata?.labels?.['rollouts-pod-template-hash'], rs.spec?.replicas]),
      [[yellow, 5]],
    );
  });
});
