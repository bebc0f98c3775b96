// `kubectl stepwise migrate -f`, the command, offline: manifests on stdout or one file each in
// -o DIR; a field that cannot be converted fails it with nothing written (exit 1), unless
// --allow-partial; --allow-partial and --adopt do not go together. Needs no cluster.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { lintDocuments } from '../../../../src/cli/lint/documents.ts';
import { runCli } from '../harness.ts';
import { ANALYSIS, EXPERIMENT } from './argo-docs.ts';

describe('migrate -f, the command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-migrate-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { HOME: dir, KUBECONFIG: join(dir, 'none') };
  const good = join(dir, 'argo.yaml');
  writeFileSync(good, ANALYSIS);
  const bad = join(dir, 'experiment.yaml');
  writeFileSync(bad, EXPERIMENT);

  it('writes stepwise.dev manifests to stdout that `lint` passes', async () => {
    const r = await runCli(['migrate', '-f', good], { env });
    assert.equal(r.code, 0, r.err);
    const docs = loadAll(r.out) as { apiVersion: string; kind: string }[];
    assert.deepEqual(
      docs.map((d) => `${d.apiVersion} ${d.kind}`),
      ['stepwise.dev/v1alpha1 AnalysisTemplate', 'stepwise.dev/v1alpha1 Rollout'],
    );
    assert.deepEqual(lintDocuments([{ file: 'out', text: r.out }]).problems, []);
  });

  it('-o DIR: one file a manifest', async () => {
    const out = join(dir, 'gitops');
    const r = await runCli(['migrate', '-f', good, '-o', out], { env });
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(readdirSync(out).sort(), [
      'analysistemplate-success-rate.yaml',
      'rollout-guestbook.yaml',
    ]);
    assert.match(
      readFileSync(join(out, 'rollout-guestbook.yaml'), 'utf8'),
      /^apiVersion: stepwise.dev\/v1alpha1\nkind: Rollout\n/,
    );
  });

  it('a field it cannot convert: each named on stderr, exit 1, nothing written', async () => {
    const out = join(dir, 'not-written');
    const r = await runCli(['migrate', '-f', bad, '-o', out], { env });
    assert.equal(r.code, 1);
    assert.equal(r.out, '');
    assert.equal(existsSync(out), false);
    const lines = r.err.trim().split('\n');
    assert.equal(lines.length, 6);
    assert.match(lines[1] ?? '', /steps\[0\]\.experiment: Argo's Experiment step/);
    assert.match(lines[5] ?? '', /5 fields cannot be converted; nothing written/);
  });

  it('--allow-partial writes them anyway, the problems as comments; never with --adopt', async () => {
    const r = await runCli(['migrate', '-f', bad, '--allow-partial'], { env });
    assert.equal(r.code, 0);
    assert.equal(r.out.split('\n').filter((l) => l.startsWith('# cannot convert:')).length, 5);
    const both = await runCli(['migrate', '-f', bad, '--allow-partial', '--adopt'], { env });
    assert.equal(both.code, 1);
    assert.match(both.err, /--allow-partial cannot be combined with --adopt/);
  });
});
