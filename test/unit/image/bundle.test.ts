import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LICENSES_FILE, bundleController, bundledPackages } from '../../../image/bundle.ts';
import { stampOf } from '../../../image/stamp.ts';
import { REPO_ROOT } from '../../cluster/state.ts';

// The bundle built from the sources (esbuild strips the types), as `make build` builds it from
// tsc's output: same options, same module graph.
let out = '';
let entry = '';

before(async () => {
  out = mkdtempSync(join(tmpdir(), 'stepwise-bundle-'));
  entry = await bundleController({
    entry: join(REPO_ROOT, 'src', 'controller', 'main.ts'),
    dashboardEntry: join(REPO_ROOT, 'src', 'cli', 'dashboard', 'in-cluster', 'main.ts'),
    out: join(out, 'bundle'),
    sourcemap: false,
    stamp: stampOf('9.8.7', 'f00d', 1_700_000_000),
  });
});

after(() => rmSync(out, { recursive: true, force: true }));

/** The chunks a module imports statically (`import ... from "./x.mjs"`), not `import()`. */
function staticImports(file: string): string[] {
  const text = readFileSync(join(out, 'bundle', file), 'utf8');
  return [...text.matchAll(/^(?:import\s[^;]*?from\s*|import\s*)"\.\/([^"]+)"/gm)].map(
    (m) => m[1] ?? '',
  );
}

function loadedAtStart(): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    staticImports(file).forEach(visit);
  };
  visit('controller.mjs');
  return seen;
}

/** esbuild heads each input with a comment naming it: `// node_modules/axios/lib/axios.js`. */
const holds = (file: string, pkg: string): boolean =>
  readFileSync(join(out, 'bundle', file), 'utf8').includes(`// node_modules/${pkg}/`);

describe('the in-cluster dashboard beside it (dist/bundle/dashboard.mjs)', () => {
  it('runs from the bundle alone, the page carried in it (no esbuild, no files at run time)', () => {
    const dashboard = join(out, 'bundle', 'dashboard.mjs');
    const help = spawnSync(process.execPath, [dashboard, '--help'], { encoding: 'utf8' });
    assert.match(help.stdout, /^stepwise-dashboard: /, help.stderr);
    assert.equal(help.status, 0);
    const bad = spawnSync(process.execPath, [dashboard, '--public-origin', 'https://x/ui'], {
      encoding: 'utf8',
    });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--public-origin must be scheme:\/\/host\[:port\] only/);
    const text = readdirSync(join(out, 'bundle'))
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => readFileSync(join(out, 'bundle', f), 'utf8'))
      .join('\n');
    // The page's stylesheet, defined at build time; esbuild itself is not bundled.
    assert.match(text, /\.sign-in\{/);
    assert.ok(!text.includes('// node_modules/esbuild/'), 'esbuild is not in the bundle');
  });
});

describe('the controller bundle (dist/bundle/controller.mjs)', () => {
  it('loads axios and client-node only when a provider or an exec credential asks for them', () => {
    const eager = loadedAtStart();
    const chunks = readdirSync(join(out, 'bundle'));
    for (const pkg of ['axios', '@kubernetes/client-node']) {
      assert.deepEqual(
        [...eager].filter((f) => holds(f, pkg)),
        [],
        `${pkg} in a chunk loaded at start-up`,
      );
      assert.ok(
        chunks.some((f) => !eager.has(f) && holds(f, pkg)),
        `${pkg} bundled into a lazily imported chunk`,
      );
    }
    assert.ok(
      [...eager].some((f) => holds(f, 'prom-client')),
      'prom-client loads at start-up',
    );
  });

  it('runs: every module loaded at start-up evaluates (CommonJS ones through the require shim)', () => {
    // main() runs only once every static import has evaluated; its usage text is the proof.
    const help = spawnSync(process.execPath, [entry, '--help'], { encoding: 'utf8' });
    assert.match(help.stdout, /^stepwise-controller \[flags\]\n/, help.stderr);
    assert.equal(help.stderr, '');
    assert.equal(help.status, 0, 'asking for help is not a failure');
  });

  it('--version: the stamp given at build time, exit code 0', () => {
    const version = spawnSync(process.execPath, [entry, '--version'], { encoding: 'utf8' });
    assert.equal(version.status, 0, version.stderr);
    assert.match(
      version.stdout,
      /^stepwise-controller v9\.8\.7\n {2}Commit: f00d\n {2}Build date: 2023-11-14T22:13:20Z\n/,
    );
  });

  it('refuses bad flags with exit code 2 and says which flag, on stderr', () => {
    const bad = spawnSync(process.execPath, [entry, '--workers=0'], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /--workers must be a positive integer/);
    assert.equal(bad.stdout, '');
  });

  it('its lazy chunks evaluate too (axios, client-node)', () => {
    const lazy = readdirSync(join(out, 'bundle')).filter(
      (f) => !loadedAtStart().has(f) && (holds(f, 'axios') || holds(f, '@kubernetes/client-node')),
    );
    const script = lazy.map((f) => `await import(${JSON.stringify(join(out, 'bundle', f))});`);
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script.join('\n')], {
      encoding: 'utf8',
    });
    assert.equal(run.status, 0, run.stderr);
  });
});

describe('the licences shipped with the bundle', () => {
  it('names each package directory once, scoped and nested ones included', () => {
    assert.deepEqual(
      bundledPackages([
        'src/controller/main.ts',
        'node_modules/axios/lib/axios.js',
        'node_modules/axios/index.js',
        'node_modules/@kubernetes/client-node/dist/index.js',
        'node_modules/form-data/node_modules/mime-types/index.js',
        'node_modules/a/node_modules/@s/b/lib/c.js',
      ]),
      [
        'node_modules/@kubernetes/client-node',
        'node_modules/a/node_modules/@s/b',
        'node_modules/axios',
        'node_modules/form-data/node_modules/mime-types',
      ],
    );
  });

  it('holds an entry, with its licence text, for every package whose code is in the bundle', () => {
    const notices = readFileSync(join(out, 'bundle', LICENSES_FILE), 'utf8');
    // By the last node_modules/ in each input's path: the package its code belongs to.
    const bundled = new Set<string>();
    for (const file of readdirSync(join(out, 'bundle'))) {
      const text = readFileSync(join(out, 'bundle', file), 'utf8');
      for (const m of text.matchAll(/^\/\/ .*node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)) {
        bundled.add(m[1] ?? '');
      }
    }
    assert.ok(bundled.has('prom-client') && bundled.has('axios'), [...bundled].join(', '));
    for (const pkg of bundled) {
      assert.match(notices, new RegExp(`^== ${pkg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}@`, 'm'));
    }
    assert.match(notices, /^== js-yaml@\S+ \(MIT\)\n\(The MIT License\)/m);
  });
});
