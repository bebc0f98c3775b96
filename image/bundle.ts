/**
 * The controller's production entry point: the compiled dist/ bundled by esbuild into one module
 * (dist/bundle/controller.mjs), with the lazily imported dependencies (axios for the web
 * provider, client-node for exec credentials) split into chunks that load only when used.
 *
 *   node image/bundle.ts [--entry=dist/controller/main.js] [--out=dist/bundle] [--sourcemap]
 *
 * Why bundle: measured idle with no Rollouts, the same code is 87 MB as ~150 ES modules and
 * 73 MB as one (`make bench BENCH=memory`). Each module costs the loader its record, its source
 * string and its wrapper, and loading that many makes the loader's own functions hot enough
 * for V8 to optimize them, which pages in more of Node's binary. No minification: stack traces
 * keep their names, and minifying saved only 2-3 MB more.
 *
 * The bundle carries its dependencies, so nothing needs node_modules at run time; their licence
 * texts go beside it in THIRD_PARTY_LICENSES.txt.
 */
import { build } from 'esbuild';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BuildInfo } from '../src/api/version.ts';
import { buildStamp, stampDefine } from './stamp.ts';

export const BUNDLE_ENTRY = 'controller.mjs';
/** The in-cluster dashboard (stepwise-dashboard), beside the controller in the same image: the
 *  Helm chart's dashboard Deployment runs it. */
export const DASHBOARD_BUNDLE_ENTRY = 'dashboard.mjs';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/**
 * CommonJS dependencies (prom-client) call require() for Node's modules, which an ES module
 * does not have; esbuild leaves those calls to a `require` in scope.
 */
const REQUIRE_SHIM =
  "import { createRequire as stepwiseCreateRequire } from 'node:module';\n" +
  'const require = stepwiseCreateRequire(import.meta.url);';

export interface BundleOptions {
  /** The controller's main module: tsc's dist/controller/main.js (or the .ts source). */
  readonly entry: string;
  /** Where controller.mjs and its chunks are written; replaced, so no stale chunk lingers. */
  readonly out: string;
  /** Map the bundle back to src/ through tsc's own maps (read under --enable-source-maps). */
  readonly sourcemap: boolean;
  /** Version, commit and build date for src/api/version.ts; without it, the unstamped fallback. */
  readonly stamp?: BuildInfo;
  /** The bundle's file name without `.mjs`: `controller` unless another program is bundled
   *  (the demo application of the `stepwise-demo` image). */
  readonly name?: string;
  /** The in-cluster dashboard's main module (src/cli/dashboard/in-cluster/main): bundled as
   *  dashboard.mjs, with the page's script and style built now and carried as a string. */
  readonly dashboardEntry?: string;
}

export const LICENSES_FILE = 'THIRD_PARTY_LICENSES.txt';

export async function bundleController(opts: BundleOptions): Promise<string> {
  rmSync(opts.out, { recursive: true, force: true });
  const dashboard = opts.dashboardEntry === undefined ? undefined : await dashboardDefine();
  const result = await build({
    entryPoints: {
      [opts.name ?? 'controller']: opts.entry,
      ...(opts.dashboardEntry === undefined ? {} : { dashboard: opts.dashboardEntry }),
    },
    outdir: opts.out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    outExtension: { '.js': '.mjs' },
    chunkNames: '[name]-[hash]',
    banner: { js: REQUIRE_SHIM },
    legalComments: 'eof',
    sourcemap: opts.sourcemap ? 'linked' : false,
    // Comments in the output name each input by its path from here: the same in every build.
    absWorkingDir: REPO_ROOT,
    logLevel: 'warning',
    metafile: true,
    define: { ...(opts.stamp ? stampDefine(opts.stamp) : {}), ...dashboard },
    // Only the sources bundle the page at run time (src/dashboard/build.ts); here it is defined.
    external: ['esbuild'],
  });
  const packages = bundledPackages(Object.keys(result.metafile.inputs));
  writeFileSync(join(opts.out, LICENSES_FILE), packages.map(licenseNotice).join('\n'));
  return join(opts.out, opts.name ? `${opts.name}.mjs` : BUNDLE_ENTRY);
}

/** The dashboard's page, bundled from src/dashboard/web/ now: no files or esbuild at run time. */
async function dashboardDefine(): Promise<Record<string, string>> {
  const { bundleAssets } = await import('../src/dashboard/build.ts');
  return { STEPWISE_DASHBOARD_ASSETS: JSON.stringify(await bundleAssets()) };
}

/**
 * The package directories the bundle's inputs come from, e.g. `node_modules/axios` and
 * `node_modules/a/node_modules/@scope/b`, sorted and each once.
 */
export function bundledPackages(inputs: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match?.[1]) dirs.add(match[1]);
  }
  return [...dirs].sort();
}

/** One package's entry: name, version, declared licence, then its licence and notice files. */
function licenseNotice(dir: string): string {
  const abs = join(REPO_ROOT, dir);
  const pkg = JSON.parse(readFileSync(join(abs, 'package.json'), 'utf8')) as {
    name?: string;
    version?: string;
    license?: string;
  };
  const texts = readdirSync(abs)
    .filter((f) => /^(licen[cs]e|copying|notice)/i.test(f))
    .sort()
    .map((f) => readFileSync(join(abs, f), 'utf8').trim());
  const heading = `== ${pkg.name ?? dir}@${pkg.version ?? '?'} (${pkg.license ?? 'no licence declared'})`;
  return [heading, ...(texts.length > 0 ? texts : ['(no licence file in the package)']), ''].join(
    '\n',
  );
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      entry: { type: 'string', default: join(REPO_ROOT, 'dist', 'controller', 'main.js') },
      out: { type: 'string', default: join(REPO_ROOT, 'dist', 'bundle') },
      sourcemap: { type: 'boolean', default: false },
    },
  });
  await bundleController({
    entry: values.entry,
    // Beside the controller's main in the same tree (dist/ from tsc, or src/).
    dashboardEntry: join(
      dirname(dirname(values.entry)),
      'cli',
      'dashboard',
      'in-cluster',
      `main${extname(values.entry)}`,
    ),
    out: values.out,
    sourcemap: values.sourcemap,
    stamp: buildStamp(),
  });
}
