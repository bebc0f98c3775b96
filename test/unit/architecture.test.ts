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
  // The plugin reads Rollouts with the controller's own pure rules (steps, weights, traffic
  // bodies, analysis evaluation) and sends with its transport, never its other I/O: see PARTS
  // and the plugin's reach below.
  cli: { modules: ['api', 'rollout', 'traffic', 'analysis', 'dashboard', 'kube'], packages: true },
  // The web page and its server: it shows Rollouts with the plugin's own pure rules for showing
  // them (render/, sanitise.ts and what they use), never the plugin's I/O; what it does is handed
  // to it (the plugin's actions, its watches), so the in-cluster mode can hand it others.
  dashboard: { modules: ['api', 'rollout', 'cli'], packages: true },
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

/** The controller's way to the API server, which the plugin sends through too: one kubeconfig
 *  reader, one transport, one error model (never its informers, queues or writers). */
const KUBE_TRANSPORT = [
  'kube/kubeconfig.ts',
  'kube/https-transport.ts',
  'kube/client-node-transport.ts',
  'kube/rest.ts',
  'kube/errors.ts',
] as const;

/** Within a module it may import, the only parts a module may reach: the plugin takes the pure
 *  half of analysis (evaluation and expressions), never its providers (HTTP, Jobs). */
const PARTS: Record<string, Record<string, string[]>> = {
  cli: { analysis: ['analysis/evaluate/', 'analysis/expr/'], kube: [...KUBE_TRANSPORT] },
  dashboard: { cli: ['cli/render/', 'cli/sanitise.ts'] },
};

/** All the plugin may load outside src/cli, through any chain of imports: the pure modules, and
 *  of kube only what the pure routers take from it (resource names, object types). */
const PLUGIN_REACH: Record<string, readonly string[] | 'all'> = {
  api: 'all',
  rollout: 'all',
  traffic: 'all',
  analysis: ['analysis/evaluate/', 'analysis/expr/'],
  kube: ['kube/resources.ts', 'kube/objects.ts', ...KUBE_TRANSPORT],
  dashboard: 'all',
};

/** The plugin's I/O outside src/cli: its way to the API server (the controller's kubeconfig
 *  reader and transport); its one server, the dashboard's, on 127.0.0.1 (node:http), and the
 *  same page served in the cluster with sign-in (stepwise-dashboard); and, run from the sources
 *  only, esbuild bundling the page (the single-file binary embeds it instead). */
const PLUGIN_IO_ALLOWED: Readonly<Record<string, readonly string[]>> = {
  'kube/kubeconfig.ts': ['node:fs', 'js-yaml'],
  'kube/https-transport.ts': ['node:http', 'node:https'],
  // Loaded only for a user whose credentials come from an exec or auth-provider plugin.
  'kube/client-node-transport.ts': ['@kubernetes/client-node'],
  'dashboard/server/app.ts': ['node:http'],
  'dashboard/server/cluster-app.ts': ['node:http'],
  'dashboard/build.ts': ['esbuild'],
};

/** Built-ins that reach the network, files or processes. */
const IO_BUILTINS = new Set(
  [
    'fs',
    'fs/promises',
    'http',
    'https',
    'http2',
    'net',
    'tls',
    'dgram',
    'dns',
    'child_process',
  ].flatMap((m) => [m, `node:${m}`]),
);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function imports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const found = [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)];
  const bare = [...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm)];
  const dynamic = [...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)];
  return [...found, ...bare, ...dynamic].map((m) => m[1] ?? '');
}

/** Imports that load code: static ones that are not `import type`, and dynamic ones. */
function valueImports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const found = [
    ...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/^\s*import\s+['"]([^'"]+)['"]/gm),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  return found.map((m) => m[1] ?? '');
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
        const path = relative(SRC, resolve(dirname(file), spec));
        const parts = PARTS[module]?.[target];
        if (target !== module && !rule.modules.includes(target)) {
          problems.push(`${relative(SRC, file)} imports ${spec} (${module} → ${target})`);
        } else if (parts && !parts.some((part) => path.startsWith(part))) {
          problems.push(
            `${relative(SRC, file)} imports ${spec} (${module} → only ${parts.join(', ')})`,
          );
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

test('the plugin reaches no I/O outside its own folder, however deep the imports go', () => {
  // A direct rule cannot see traffic → kube → something that opens a socket; the walk does.
  // Type-only imports are erased; dynamic ones count (they load code all the same).
  const outside = new Set<string>();
  const visit = (file: string): void => {
    for (const spec of valueImports(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (target.startsWith(join(SRC, 'cli')) || outside.has(target)) continue;
      outside.add(target);
      visit(target);
    }
  };
  for (const file of files(join(SRC, 'cli'))) visit(file);
  assert.ok(
    [...outside].some((f) => f.includes('/rollout/')),
    'the walk reached the pure core',
  );
  const problems: string[] = [];
  for (const file of outside) {
    const rel = relative(SRC, file);
    const module = rel.split('/')[0] ?? '';
    const reach = PLUGIN_REACH[module];
    if (reach === undefined || (reach !== 'all' && !reach.some((p) => rel.startsWith(p)))) {
      problems.push(`${rel}: the plugin must not load it`);
    }
    for (const spec of valueImports(file)) {
      if (PLUGIN_IO_ALLOWED[rel]?.includes(spec)) continue;
      if (IO_BUILTINS.has(spec)) problems.push(`${rel} imports '${spec}'`);
      else if (!spec.startsWith('.') && !spec.startsWith('node:') && module !== 'api') {
        problems.push(`${rel} imports the package '${spec}'`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('deploy/ holds what a user applies: no code', () => {
  // The narrated demo lives in demo/; test/helm/chart-copies.ts keeps the chart's copies of deploy/.
  const deploy = resolve(SRC, '..', 'deploy');
  assert.deepEqual(
    files(deploy).map((f) => relative(deploy, f)),
    [],
  );
});

test('a folder under src/rollout/ is imported only through its index.ts, a strategy (or pre-pass) folder only by the dispatch tables and the public surface', () => {
  const ROLLOUT = join(SRC, 'rollout');
  const folders = readdirSync(ROLLOUT)
    .map((name) => join(ROLLOUT, name))
    .filter((path) => statSync(path).isDirectory());
  assert.ok(folders.includes(join(ROLLOUT, 'canary')), 'the canary is a strategy folder');
  // Not strategies: folders the planner wraps around every strategy's pass (and the types).
  const around: Readonly<Record<string, readonly string[]>> = {
    [join(ROLLOUT, 'workload-ref')]: [join(ROLLOUT, 'plan.ts'), join(ROLLOUT, 'types.ts')],
  };
  const strategyImporters = ['strategies.ts', 'passes.ts', 'index.ts'].map((name) =>
    join(ROLLOUT, name),
  );
  const problems: string[] = [];
  for (const file of files(SRC)) {
    for (const spec of imports(file)) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      const folder = folders.find((f) => target.startsWith(`${f}/`));
      if (folder === undefined || file.startsWith(`${folder}/`)) continue;
      const importers = new Set([...strategyImporters, ...(around[folder] ?? [])]);
      if (!importers.has(file) || target !== join(folder, 'index.ts')) {
        problems.push(`${relative(SRC, file)} imports ${relative(SRC, target)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});
