// Shell completion: what `__complete` offers for the real command tree (commands, flags, flag
// values, resource words, files for lint), rollout names from the fake API server through the
// plugin's own `list rollouts -o name` with the -n typed, and the bash script run in real bash.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeApiServer } from './fake-apiserver.ts';
import { analysisRun, rollout } from './fixtures.ts';
import { runCli, writeKubeconfig } from './harness.ts';

const dir = mkdtempSync(join(tmpdir(), 'stepwise-completion-'));
const kubeconfig = join(dir, 'kubeconfig');
const api = new FakeApiServer();
const env = { KUBECONFIG: kubeconfig, HOME: dir };
const complete = async (...words: string[]) => {
  const r = await runCli(['__complete', ...words], { env });
  assert.equal(r.code, 0);
  assert.equal(r.err, '');
  const lines = r.out.trimEnd().split('\n');
  return { values: lines.slice(0, -1).map((l) => l.split('\t')[0]), directive: lines.at(-1) };
};

before(async () => {
  await api.start();
  writeKubeconfig(kubeconfig, api.url, 'shop');
  for (const [ns, name] of [
    ['shop', 'web'],
    ['shop', 'worker'],
    ['shop', 'api'],
    ['other', 'billing'],
  ] as const) {
    const ro = rollout();
    api.put('rollouts', { ...ro, metadata: { ...ro.metadata, name, namespace: ns } });
  }
  api.put('analysisruns', structuredClone(analysisRun('web-abc-2-1', 'Running', [])) as never);
});
after(async () => {
  await api.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('__complete', () => {
  it('commands, subcommands and resource words, by prefix; no files', async () => {
    const top = await complete('');
    assert.ok(top.values.includes('promote') && top.values.includes('lint'));
    assert.ok(!top.values.some((v) => v!.startsWith('__')));
    const re = await complete('re');
    for (const c of ['reject', 'retry', 'restart']) assert.ok(re.values.includes(c), c);
    assert.ok(re.values.every((v) => v!.startsWith('re')));
    assert.deepEqual(await complete('und'), { values: ['undo'], directive: ':4' });
    assert.deepEqual((await complete('get', '')).values, ['rollout', 'analysisrun']);
    assert.deepEqual((await complete('list', '')).values, ['rollouts']);
    assert.deepEqual((await complete('set', '')).values, ['image']);
    assert.deepEqual((await complete('completion', '')).values, ['bash', 'zsh', 'fish']);
  });

  it('flags of the command and the global ones; values of -o', async () => {
    const flags = await complete('get', 'rollout', 'web', '--');
    for (const f of ['--watch', '--output', '--namespace', '--kubeconfig', '--help']) {
      assert.ok(flags.values.includes(f), f);
    }
    assert.deepEqual((await complete('list', '-o', '')).values, ['json', 'yaml', 'name']);
    assert.deepEqual((await complete('undo', 'web', '--to')).values, ['--to-revision']);
  });

  it('rollout names from the cluster, in the namespace typed (aliases and flags before them too)', async () => {
    assert.deepEqual(await complete('promote', ''), {
      values: ['web', 'worker', 'api'],
      directive: ':4',
    });
    assert.deepEqual((await complete('get', 'ro', 'w')).values, ['web', 'worker']);
    assert.deepEqual((await complete('-n', 'other', 'status', '')).values, ['billing']);
    assert.deepEqual((await complete('abort', '--namespace=other', '')).values, ['billing']);
    assert.deepEqual((await complete('retry', 'rollout', 'a')).values, ['api']);
    assert.deepEqual((await complete('get', 'analysisrun', '')).values, ['web-abc-2-1']);
  });

  it('files for lint; nothing (and no error) when the cluster is not there', async () => {
    assert.deepEqual(await complete('lint', ''), { values: [], directive: ':0' });
    const r = await runCli(['__complete', 'promote', '--kubeconfig', join(dir, 'none'), ''], {
      env,
    });
    assert.deepEqual(r, { code: 0, out: ':4\n', err: '' });
  });
});

describe('completion scripts', () => {
  it('bash: completes commands and rollout names through __complete', async () => {
    const bin = join(dir, 'bin');
    const main = join(import.meta.dirname, '..', '..', '..', 'src', 'cli', 'main.ts');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'kubectl-stepwise'),
      `#!/bin/sh\nexec "${process.execPath}" --disable-warning=ExperimentalWarning "${main}" "$@"\n`,
    );
    chmodSync(join(bin, 'kubectl-stepwise'), 0o755);
    const script = (await runCli(['completion', 'bash'], { env })).out;
    writeFileSync(join(dir, 'completion.bash'), script);
    // Asynchronous: the fake API server answers from this process's event loop.
    const tab = async (line: string): Promise<string> =>
      (
        await promisify(execFile)(
          'bash',
          [
            '-c',
            `source ${join(dir, 'completion.bash')}; read -ra COMP_WORDS <<< "$LINE"; ` +
              `[[ $LINE == *' ' ]] && COMP_WORDS+=(''); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); ` +
              `_kubectl_stepwise; printf '%s\\n' "\${COMPREPLY[@]}"`,
          ],
          { env: { ...env, PATH: `${bin}:${process.env['PATH'] ?? ''}`, LINE: line } },
        )
      ).stdout;
    assert.equal(await tab('kubectl-stepwise pro'), 'promote\n');
    assert.equal(await tab('kubectl-stepwise promote w'), 'web\nworker\n');
    assert.equal(await tab('kubectl-stepwise list -o y'), 'yaml\n');
  });

  it('zsh and fish scripts hand the words to __complete', async () => {
    for (const shell of ['zsh', 'fish']) {
      const script = (await runCli(['completion', shell], { env })).out;
      assert.match(script, /kubectl-stepwise __complete/);
    }
  });
});
