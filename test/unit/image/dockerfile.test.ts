import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ENTRYPOINT, IMAGE_ENV, IMAGE_UID } from '../../../image/rootfs.ts';

/** The Dockerfile's instructions by stage, continuation lines joined. */
function stages(text: string): { from: string; instructions: [string, string][] }[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const result: { from: string; instructions: [string, string][] }[] = [];
  for (const line of lines) {
    const [keyword = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    if (keyword === 'FROM') result.push({ from: args, instructions: [] });
    else result.at(-1)?.instructions.push([keyword, args]);
  }
  return result;
}

const dockerfile = stages(readFileSync(new URL('../../../Dockerfile', import.meta.url), 'utf8'));
const makefile = readFileSync(new URL('../../../Makefile', import.meta.url), 'utf8');

describe('Dockerfile beside make image', () => {
  const final = dockerfile.at(-1);
  const get = (keyword: string): string[] =>
    final?.instructions.filter(([k]) => k === keyword).map(([, v]) => v) ?? [];

  it('runs the same entrypoint, user, working directory and environment as make image', () => {
    assert.equal(final?.from, 'scratch');
    assert.deepEqual(
      get('ENTRYPOINT').map((v) => JSON.parse(v) as unknown),
      [[...ENTRYPOINT]],
    );
    assert.deepEqual(get('USER'), [`${IMAGE_UID}:${IMAGE_UID}`]);
    assert.deepEqual(get('WORKDIR'), ['/tmp']);
    const env = Object.fromEntries(
      get('ENV')
        .flatMap((v) => v.split(/\s+/))
        .map((pair) => pair.split('=') as [string, string]),
    );
    assert.deepEqual(env, IMAGE_ENV);
  });

  it('holds only the staged root file system, staged by the code make image stages with', () => {
    assert.deepEqual(get('COPY'), ['--from=stage /out/rootfs/ /']);
    const stage = dockerfile.find((s) => s.from.endsWith(' AS stage'));
    const runs = stage?.instructions.filter(([k]) => k === 'RUN').map(([, v]) => v) ?? [];
    assert.ok(
      runs.some((r) => /node .*image\/build\.ts --stage-only --node-home=\/node/.test(r)),
      runs.join('\n'),
    );
  });

  it('takes the Node version make image takes', () => {
    const nodeVersion = /^NODE_VERSION := (\S+)$/m.exec(makefile)?.[1];
    const stage = dockerfile.find((s) => s.from.endsWith(' AS stage'));
    assert.ok(nodeVersion);
    assert.ok(
      stage?.instructions.some(([k, v]) => k === 'ARG' && v === `NODE_VERSION=${nodeVersion}`),
    );
  });
});
