/**
 * `make image`: the controller as an OCI image, built without a container engine.
 *
 *   node image/build.ts --node-home=DIR [--out=DIR] [--tag=NAME:VERSION]
 *                       [--platform=linux/amd64|linux/arm64 --arm64-tools=DIR] [--stage-only]
 *                       [--app=controller|demo] [--keep-bundle=DIR]
 *
 * `--app=demo` builds the demo application's image (`stepwise-demo`, demo/app/) the same way,
 * on the same runtime layer; `make release` ships both.
 *
 * Stages a root file system (Node 24 and the shared libraries it links against (image/runtime.ts), the controller
 * bundled with its dependencies and their licences, /etc for a non-root user), packs it into
 * layers with GNU tar's reproducible options, and has crane (go-containerregistry) make the
 * image from them on an empty base, through a throwaway registry on loopback (crane's mutate
 * works on a registry).
 * Writes OUT/stepwise-controller.tar (`docker load`, `podman load`, `ctr images import`), the
 * same image as an OCI layout in OUT/oci/, and OUT/image.json; prints the digest and the size.
 * Same commit and same inputs (Node, the Debian libraries, node_modules): same digest.
 * --stage-only stops at OUT/rootfs (the Dockerfile copies that onto scratch).
 * --keep-bundle copies the image's app/dist/bundle to DIR: `make e2e` runs its controllers from
 * it, the very code the image carries (a start costs a third of the CPU of one from src/).
 * linux/arm64 on an x86-64 machine takes Debian's arm64 libraries and qemu from --arm64-tools;
 * on an arm64 machine (the Dockerfile's arm64 stage) ldd lists them as for amd64.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { IMAGE_APPS, IMAGE_ENV, IMAGE_UID, LAYERS, tarArguments } from './rootfs.ts';
import type { ImageApp } from './rootfs.ts';
import { arm64ToolsIn, hostPlatform, stageRuntime } from './runtime.ts';
import type { ImagePlatform } from './runtime.ts';
import { bundleController } from './bundle.ts';
import { buildStamp, sourceDateEpoch } from './stamp.ts';
import type { BuildInfo } from '../src/api/version.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

const say = (line: string): void => {
  const time = new Date().toTimeString().slice(0, 8);
  process.stderr.write(`[image ${time}] ${line}\n`);
};

/**
 * Runs a command to completion; its output is returned, and shown when it fails. With
 * `progress`, its stderr goes straight to ours (a long first build says what it does).
 */
function run(
  command: string,
  args: readonly string[],
  opts: { cwd?: string; progress?: boolean } = {},
): string {
  const result = spawnSync(command, args, {
    cwd: opts.cwd ?? REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', opts.progress ? 'inherit' : 'pipe'],
  });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n` +
        `${result.stdout}${result.stderr ?? ''}`.trim(),
    );
  }
  return result.stdout;
}

async function step<T>(what: string, work: () => T | Promise<T>): Promise<T> {
  const started = Date.now();
  say(`${what}...`);
  const value = await work();
  say(`${what}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return value;
}

/** package.json's licence (SPDX), which the LICENSE file beside it spells out. */
function packageLicense(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    license: string;
  };
  return pkg.license;
}

interface Options {
  readonly nodeHome: string;
  readonly out: string;
  readonly tag: string;
  readonly platform: ImagePlatform;
  /** image/arm64-tools.sh's folder, for linux/arm64 on an x86-64 machine. */
  readonly arm64Tools: string | undefined;
  readonly stageOnly: boolean;
  readonly app: ImageApp;
  /** Where to copy the image's bundle to, for the end-to-end tests. */
  readonly keepBundle: string | undefined;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      'node-home': { type: 'string' },
      out: { type: 'string' },
      tag: { type: 'string' },
      platform: { type: 'string', default: 'linux/amd64' },
      'arm64-tools': { type: 'string' },
      'stage-only': { type: 'boolean', default: false },
      app: { type: 'string', default: 'controller' },
      'keep-bundle': { type: 'string' },
    },
    strict: true,
  });
  const nodeHome = values['node-home'];
  if (!nodeHome) throw new Error('--node-home is required (the Makefile passes its Node 24)');
  const version = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  const platform = values.platform;
  if (platform !== 'linux/amd64' && platform !== 'linux/arm64') {
    throw new Error(`--platform must be linux/amd64 or linux/arm64, not ${platform}`);
  }
  const app = values.app;
  if (app !== 'controller' && app !== 'demo') {
    throw new Error(`--app must be controller or demo, not ${app}`);
  }
  if (platform !== hostPlatform() && !values['arm64-tools']) {
    throw new Error('linux/arm64 needs --arm64-tools (the folder image/arm64-tools.sh prints)');
  }
  return {
    platform,
    arm64Tools: platform === hostPlatform() ? undefined : values['arm64-tools'],
    stageOnly: values['stage-only'],
    keepBundle: values['keep-bundle'],
    nodeHome,
    out: values.out ?? join(REPO_ROOT, '.stepwise', app === 'demo' ? 'image-demo' : 'image'),
    tag: values.tag ?? `${IMAGE_APPS[app].name}:${version}`,
    app,
  };
}

/** The demo application: its TypeScript bundled straight from demo/app (esbuild strips the
 *  types; it needs no tsc output). */
async function stageDemo(staging: string, stamp: BuildInfo): Promise<void> {
  const app = join(staging, 'app');
  mkdirSync(app, { recursive: true });
  await bundleController({
    entry: join(REPO_ROOT, 'demo', 'app', 'main.ts'),
    out: join(app, 'dist', 'bundle'),
    sourcemap: false,
    stamp,
    name: IMAGE_APPS.demo.bundle,
  });
  copyFileSync(join(REPO_ROOT, 'LICENSE'), join(app, 'LICENSE'));
}

async function stageApp(staging: string, stamp: BuildInfo): Promise<void> {
  const app = join(staging, 'app');
  mkdirSync(app, { recursive: true });
  // Straight from src/: the sources are erasable TypeScript only (tsconfig's erasableSyntaxOnly),
  // so esbuild's type stripping is all a compile would do; `make typecheck` is the type check.
  // Paths in the bundle's comments are relative to the repository: the same in every build.
  await bundleController({
    entry: join(REPO_ROOT, 'src', 'controller', 'main.ts'),
    dashboardEntry: join(REPO_ROOT, 'src', 'cli', 'dashboard', 'in-cluster', 'main.ts'),
    out: join(app, 'dist', 'bundle'),
    sourcemap: false,
    stamp,
  });
  // Stepwise's own licence beside the bundle (its dependencies' are in the bundle's folder).
  copyFileSync(join(REPO_ROOT, 'LICENSE'), join(app, 'LICENSE'));
}

/** Same modes whatever the umask of the machine that built it: rwX for the owner, rX for all. */
function normalizeModes(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      chmodSync(path, 0o755);
      normalizeModes(path);
    } else {
      chmodSync(path, statSync(path).mode & 0o111 ? 0o755 : 0o644);
    }
  }
}

function packLayers(staging: string, layersDir: string, epoch: number): string[] {
  mkdirSync(layersDir, { recursive: true });
  return LAYERS.map((layer) => {
    const paths = layer.paths.filter((p) => existsSync(join(staging, p)));
    const archive = join(layersDir, `${layer.name}.tar`);
    run('tar', tarArguments(epoch, staging, archive, paths));
    // gzip ourselves: crane would use Go's fastest level (node alone: 55 MB instead of 45 MB).
    // -n keeps the name and time out of the header.
    run('gzip', ['-n', '-6', archive]);
    return `${archive}.gz`;
  });
}

/** crane's in-memory registry on a free loopback port, for append and mutate. */
async function startRegistry(crane: string): Promise<{ address: string; child: ChildProcess }> {
  const child = spawn(crane, ['registry', 'serve', '--address', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`crane registry did not start: ${seen}`)),
      10_000,
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      seen += chunk;
      const match = /serving on port (\d+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`crane registry exited with ${code}: ${seen}`));
    });
  });
  return { address: `127.0.0.1:${port}`, child };
}

interface Manifest {
  readonly config: { readonly digest: string; readonly size: number };
  readonly layers: readonly { readonly digest: string; readonly size: number }[];
}

export interface ImageSummary {
  readonly tag: string;
  /** The OCI manifest's digest: what a registry serves the image as (from OUT/oci). */
  readonly digest: string;
  /** The config's digest: the image ID that `docker load` and `podman load` show. */
  readonly imageId: string;
  /** Manifest, config and gzip-compressed layers: what a node pulls. */
  readonly compressedBytes: number;
  readonly layers: readonly {
    readonly name: string;
    readonly digest: string;
    readonly bytes: number;
  }[];
  readonly archive: string;
  readonly ociLayout: string;
  readonly sourceDateEpoch: number;
}

async function main(): Promise<void> {
  const started = Date.now();
  const opts = options();
  const epoch = sourceDateEpoch();
  const stamp = buildStamp(epoch);
  say(
    `building ${opts.tag} (${opts.platform}) into ${relative(REPO_ROOT, opts.out) || '.'} (SOURCE_DATE_EPOCH ${epoch})`,
  );
  const staging = join(opts.out, 'rootfs');
  rmSync(opts.out, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const app = IMAGE_APPS[opts.app];
  if (opts.app === 'demo') {
    await step('bundle the demo application into app/dist/bundle', () => stageDemo(staging, stamp));
  } else {
    await step('bundle the controller from src/ into app/dist/bundle', () =>
      stageApp(staging, stamp),
    );
  }
  const runtime = await step('Node and the shared libraries it links against', () =>
    stageRuntime(
      staging,
      opts.nodeHome,
      opts.arm64Tools ? arm64ToolsIn(opts.arm64Tools) : undefined,
    ),
  );
  say(`  ${runtime.join(', ')}`);
  normalizeModes(staging);
  chmodSync(join(staging, 'tmp'), 0o1777);
  if (opts.stageOnly) {
    say(`staged in ${staging}`);
    return;
  }
  const crane = join(
    await step('crane (built once into the cache)', () =>
      run(join(REPO_ROOT, 'image', 'tools.sh'), ['crane'], { progress: true }).trim(),
    ),
    'crane',
  );
  const layers = await step('layers (tar sorted, mtime SOURCE_DATE_EPOCH; gzip -n)', () =>
    packLayers(staging, join(opts.out, 'layers'), epoch),
  );

  const registry = await startRegistry(crane);
  try {
    const repo = `${registry.address}/${app.name}`;
    await step('image (crane append onto an empty OCI base, then mutate)', () => {
      run(crane, [
        'append',
        '--oci-empty-base',
        ...layers.flatMap((l) => ['-f', l]),
        '-t',
        `${repo}:layers`,
      ]);
      const mutate = [
        'mutate',
        `${repo}:layers`,
        `--set-platform=${opts.platform}`,
        `--entrypoint=${app.entrypoint.join(',')}`,
        `--user=${IMAGE_UID}:${IMAGE_UID}`,
        '--workdir=/tmp',
        ...Object.entries(IMAGE_ENV).map(([k, v]) => `--env=${k}=${v}`),
        `--label=org.opencontainers.image.title=${app.name}`,
        `--label=org.opencontainers.image.version=${opts.tag.split(':').pop() ?? ''}`,
        `--label=org.opencontainers.image.revision=${stamp.revision}`,
        `--label=org.opencontainers.image.created=${stamp.buildDate}`,
        `--label=org.opencontainers.image.licenses=${packageLicense()}`,
      ];
      run(crane, [...mutate, '-t', `${repo}:final`]);
      // The same mutation again, saved as a tarball under the name people load it as.
      run(crane, [...mutate, '-t', opts.tag, '-o', join(opts.out, `${app.name}.tar`)]);
      run(crane, ['pull', '--format=oci', `${repo}:final`, join(opts.out, 'oci')]);
    });
    const digest = run(crane, ['digest', `${repo}:final`]).trim();
    const manifestText = run(crane, ['manifest', `${repo}:final`]);
    const manifest = JSON.parse(manifestText) as Manifest;
    const summary: ImageSummary = {
      tag: opts.tag,
      digest,
      imageId: manifest.config.digest,
      compressedBytes:
        Buffer.byteLength(manifestText) +
        manifest.config.size +
        manifest.layers.reduce((sum, l) => sum + l.size, 0),
      layers: manifest.layers.map((l, i) => ({
        name: LAYERS[i]?.name ?? `layer ${i}`,
        digest: l.digest,
        bytes: l.size,
      })),
      archive: join(opts.out, `${app.name}.tar`),
      ociLayout: join(opts.out, 'oci'),
      sourceDateEpoch: epoch,
    };
    checkSameImage(crane, summary);
    writeFileSync(join(opts.out, 'image.json'), JSON.stringify(summary, null, 2) + '\n');
    rmSync(join(opts.out, 'layers'), { recursive: true });
    if (opts.keepBundle !== undefined) {
      rmSync(opts.keepBundle, { recursive: true, force: true });
      cpSync(join(staging, 'app', 'dist', 'bundle'), opts.keepBundle, { recursive: true });
    }
    rmSync(staging, { recursive: true });
    const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(1)} MB`;
    process.stdout.write(
      `image     ${summary.tag}\n` +
        `digest    ${summary.digest}\n` +
        `image id  ${summary.imageId}\n` +
        `size      ${mb(summary.compressedBytes)} compressed (${summary.layers
          .map((l) => `${l.name} ${mb(l.bytes)}`)
          .join(', ')})\n` +
        `archive   ${relative(process.cwd(), summary.archive)}  (docker load / podman load -i / ctr images import)\n` +
        `oci       ${relative(process.cwd(), summary.ociLayout)}/  (crane push / skopeo copy oci:…)\n` +
        `built in  ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    registry.child.kill('SIGTERM');
  }
}

/** The tarball and the OCI layout must hold the image the registry has, config for config. */
function checkSameImage(crane: string, summary: ImageSummary): void {
  const index = JSON.parse(readFileSync(join(summary.ociLayout, 'index.json'), 'utf8')) as {
    manifests: { digest: string }[];
  };
  if (index.manifests.length !== 1 || index.manifests[0]?.digest !== summary.digest) {
    throw new Error(`OCI layout holds ${JSON.stringify(index.manifests)}, not ${summary.digest}`);
  }
  // docker's manifest.json names the config by digest: the image ID it loads as.
  const [entry] = JSON.parse(run('tar', ['-xOf', summary.archive, 'manifest.json'])) as {
    Config: string;
    RepoTags: string[];
  }[];
  const configDigest = entry?.Config.replace(/^sha256:/, '').replace(/^/, 'sha256:');
  if (configDigest !== summary.imageId || entry?.RepoTags.join() !== summary.tag) {
    throw new Error(`${summary.archive} holds ${JSON.stringify(entry)}, not ${summary.imageId}`);
  }
}

main().catch((err: unknown) => {
  say(`failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
