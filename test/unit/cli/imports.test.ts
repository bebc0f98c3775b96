// The plugin's import graph: its own files, src/api, the pure core through its public surfaces
// (src/rollout/index.ts, src/traffic/index.ts, analysis/evaluate and analysis/expr: the same rules
// the controller applies, never a copy), the controller's way to the API server (its kubeconfig
// reader, transports and errors), commander, and @kubernetes/client-node only as types or
// through the lazy import in connection.ts. test/unit/architecture.test.ts keeps whatever these
// surfaces load free of I/O. The lint and migrate modules (src/cli/lint/, src/cli/migrate/) use
// src/api's validators and js-yaml, and are only ever imported lazily.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const cliDir = join(root, 'src/cli');

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

const IMPORT = /^import\s+(type\s+)?[^'"]*?from\s+'([^']+)';/gms;
const LAZY_FOLDERS = [join(cliDir, 'lint'), join(cliDir, 'migrate')];
const isLazy = (path: string): boolean => LAZY_FOLDERS.some((dir) => path.startsWith(`${dir}/`));

/** What the plugin may import outside src/cli: src/api's files, and the pure modules' surfaces. */
const SURFACES = [
  'src/rollout/index.ts',
  'src/traffic/index.ts',
  'src/analysis/evaluate/index.ts',
  'src/analysis/expr/index.ts',
  // The web page the plugin serves (`dashboard`), loaded only by that command.
  'src/dashboard/index.ts',
  // One kubeconfig reader and transport for the controller and the plugin.
  'src/kube/kubeconfig.ts',
  'src/kube/https-transport.ts',
  'src/kube/rest.ts',
  'src/kube/errors.ts',
];

test('src/cli imports src/api, the pure modules through their surfaces, node:, commander', () => {
  const problems: string[] = [];
  for (const file of files(cliDir)) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(root, file);
    for (const m of text.matchAll(IMPORT)) {
      const typeOnly = !!m[1];
      const spec = m[2]!;
      if (spec.startsWith('node:') || spec === 'commander') continue;
      const lazy = isLazy(file);
      if (lazy && (spec === 'js-yaml' || spec.startsWith('../../api/'))) continue;
      // The lint module checks a Rollout with the controller's rules (src/rollout's surface).
      if (lazy && spec === '../../rollout/index.ts') continue;
      if (!lazy && !typeOnly && isLazy(join(file, '..', spec))) {
        problems.push(
          `${rel}: static import of ${spec} (import the lint and migrate modules lazily)`,
        );
        continue;
      }
      if (spec === '@kubernetes/client-node') {
        if (!typeOnly) problems.push(`${rel}: value import of ${spec} (import it lazily)`);
        continue;
      }
      if (!spec.startsWith('.')) {
        problems.push(`${rel}: imports ${spec}`);
        continue;
      }
      const target = relative(root, join(file, '..', spec));
      if (target.startsWith('src/cli/')) continue;
      // Not src/api/crd-gen.ts: the CRD generator writes files (a build step, not the plugin's).
      if (target.startsWith('src/api/') && target !== 'src/api/crd-gen.ts') continue;
      if (SURFACES.includes(target)) continue;
      problems.push(`${rel}: imports ${target}${typeOnly ? ' (type)' : ''}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('main.ts is the executable entry', () => {
  const main = readFileSync(join(cliDir, 'main.ts'), 'utf8');
  assert.ok(main.startsWith('#!/usr/bin/env node\n'));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
  };
  assert.equal(pkg.bin['kubectl-stepwise'], 'dist/cli/main.js');
});

test('no file in src/cli is longer than ~300 lines', () => {
  for (const file of files(cliDir)) {
    const lines = readFileSync(file, 'utf8').split('\n').length;
    assert.ok(lines <= 320, `${relative(root, file)} has ${lines} lines`);
  }
});
