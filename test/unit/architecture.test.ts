// The import arrows of design.md: controller → (rollout, server, …) → kube → api, and the pure
// core (src/rollout) imports nothing that does I/O. A backward arrow fails here, not in review.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

/** What each module may import from src/ (itself always allowed), and whether packages or node:
 *  built-ins are allowed at all. */
const RULES: Record<string, { modules: string[]; packages: boolean }> = {
  api: { modules: [], packages: true },
  rollout: { modules: ['api'], packages: false },
  kube: { modules: ['api'], packages: true },
  server: { modules: ['api', 'kube'], packages: true },
  cli: { modules: ['api', 'rollout'], packages: true },
  analysis: { modules: ['api', 'kube'], packages: true },
  // Routers are pure: objects in, apply bodies out (kube only for its types and resource names).
  traffic: { modules: ['api', 'kube'], packages: false },
  // Signed links and Slack request checks: pure apart from node:crypto.
  approval: { modules: ['api'], packages: true },
  // Notifications name the approval buttons' action ids (and token types) from approval.
  notify: { modules: ['api', 'kube', 'approval'], packages: true },
  controller: {
    modules: ['api', 'kube', 'rollout', 'analysis', 'traffic', 'server', 'approval', 'notify'],
    packages: true,
  },
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function imports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const found = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)];
  const dynamic = [...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return [...found, ...dynamic].map((m) => m[1] ?? '');
}

test('every module imports only along the allowed arrows', () => {
  const problems: string[] = [];
  for (const file of files(SRC)) {
    const module = relative(SRC, file).split('/')[0] ?? '';
    const rule = RULES[module];
    if (!rule) {
      problems.push(`${relative(SRC, file)}: module '${module}' has no import rule here`);
      continue;
    }
    for (const spec of imports(file)) {
      if (spec.startsWith('.')) {
        const target = relative(SRC, resolve(dirname(file), spec)).split('/')[0] ?? '';
        if (target !== module && !rule.modules.includes(target)) {
          problems.push(`${relative(SRC, file)} imports ${spec} (${module} → ${target})`);
        }
      } else if (!rule.packages) {
        problems.push(`${relative(SRC, file)} imports '${spec}': ${module} must stay pure`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('the rule table covers every module under src/', () => {
  const modules = readdirSync(SRC).filter((n) => statSync(join(SRC, n)).isDirectory());
  assert.deepEqual(
    modules.filter((m) => !RULES[m]),
    [],
  );
});

test('the controller never loads client-node or axios up front (memory: about 90 and 30 MB)', () => {
  // Static value imports only: `import type` is erased, and a dynamic import loads on demand.
  const staticImports = (path: string): string[] => {
    const text = readFileSync(path, 'utf8');
    return [...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm)]
      .map((m) => m[1] ?? '')
      .concat([...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)].map((m) => m[1] ?? ''));
  };
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else packages.add(spec);
    }
  };
  visit(join(SRC, 'controller', 'main.ts'));
  assert.ok(seen.size > 50, 'the import graph was walked');
  assert.deepEqual(
    [...packages].filter((p) => p.startsWith('@kubernetes/client-node') || p === 'axios'),
    [],
  );
});

test('a strategy folder under src/rollout/ is imported only by the dispatch table and the public surface, through its index.ts', () => {
  const ROLLOUT = join(SRC, 'rollout');
  const folders = readdirSync(ROLLOUT)
    .map((name) => join(ROLLOUT, name))
    .filter((path) => statSync(path).isDirectory());
  assert.ok(folders.includes(join(ROLLOUT, 'canary')), 'the canary is a strategy folder');
  const importers = new Set([join(ROLLOUT, 'strategies.ts'), join(ROLLOUT, 'index.ts')]);
  const problems: string[] = [];
  for (const file of files(SRC)) {
    for (const spec of imports(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const folder = folders.find((f) => target.startsWith(`${f}/`));
      if (folder === undefined || file.startsWith(`${folder}/`)) continue;
      if (!importers.has(file) || target !== join(folder, 'index.ts')) {
        problems.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});
