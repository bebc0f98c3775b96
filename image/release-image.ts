/**
 * The images of `make release` (the controller, and the demo application with `app: 'demo'`):
 * image/build.ts once per platform (linux/amd64 with
 * Node's x64 build and this machine's Debian libraries, linux/arm64 with Node's arm64 build and
 * Debian's arm64 packages of the same versions), merged into one OCI image index, and each
 * platform's file system started: arm64 under qemu-user-static, amd64 through the image's own
 * loader and libraries (`make e2e`'s image test runs it under runc on the cluster).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unpackImage, writeMultiPlatformLayout } from './image-index.ts';
import { IMAGE_APPS, tarArguments } from './rootfs.ts';
import type { ImageApp } from './rootfs.ts';
import { arm64ToolsIn, run } from './runtime.ts';
import type { ImagePlatform } from './runtime.ts';
import type { BuildInfo } from '../src/api/version.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface ReleaseImage {
  readonly indexDigest: string;
  /** Files written into the release folder. */
  readonly files: readonly string[];
  /** What the smoke tests printed, one line per platform. */
  readonly smoke: readonly string[];
}

export function releaseImage(opts: {
  out: string;
  work: string;
  stamp: BuildInfo;
  epoch: number;
  nodeHomes: Readonly<Record<ImagePlatform, string>>;
  arm64Tools: string;
  /** Default: the controller. */
  app?: ImageApp;
}): ReleaseImage {
  const app = opts.app ?? 'controller';
  const { name } = IMAGE_APPS[app];
  const platforms: ImagePlatform[] = ['linux/amd64', 'linux/arm64'];
  const files: string[] = [];
  const layouts = platforms.map((platform) => {
    const arch = platform.split('/')[1] ?? '';
    const dir = join(opts.work, `image-${app}-${arch}`);
    const result = spawnSync(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        join(REPO_ROOT, 'image', 'build.ts'),
        `--node-home=${opts.nodeHomes[platform]}`,
        `--out=${dir}`,
        `--platform=${platform}`,
        `--arm64-tools=${opts.arm64Tools}`,
        `--app=${app}`,
      ],
      { encoding: 'utf8', env: { ...process.env, SOURCE_DATE_EPOCH: String(opts.epoch) } },
    );
    if (result.status !== 0) {
      throw new Error(`image/build.ts for ${platform} failed:\n${result.stderr}${result.stdout}`);
    }
    const archive = `${name}-linux-${arch}.tar`;
    copyFileSync(join(dir, `${name}.tar`), join(opts.out, archive));
    files.push(archive);
    return { platform, dir: join(dir, 'oci') };
  });

  const merged = join(opts.work, `image-index-${app}`);
  rmSync(merged, { recursive: true, force: true });
  const indexDigest = writeMultiPlatformLayout(layouts, merged, opts.stamp.version);
  normalizeModes(merged);
  const ociArchive = `${name}-${opts.stamp.version}.oci.tar`;
  run(
    'tar',
    tarArguments(opts.epoch, merged, join(opts.out, ociArchive), [
      'blobs',
      'index.json',
      'oci-layout',
    ]),
  );
  files.push(ociArchive);

  const smoke = layouts.map(({ platform, dir }) =>
    startImage(platform, dir, join(opts.work, `rootfs-${app}-${platform.split('/')[1]}`), {
      ...opts,
      app,
    }),
  );
  return { indexDigest, files, smoke };
}

/**
 * Unpacks a platform's image and starts its Node and its program from its own files:
 * `node --version`, the program's `--version` (this build's stamp) and `--help`.
 */
function startImage(
  platform: ImagePlatform,
  layout: string,
  rootfs: string,
  opts: { stamp: BuildInfo; arm64Tools: string; app: ImageApp },
): string {
  rmSync(rootfs, { recursive: true, force: true });
  unpackImage(layout, rootfs);
  const { name, entrypoint } = IMAGE_APPS[opts.app];
  const node = join(rootfs, 'nodejs', 'bin', 'node');
  const controller = join(rootfs, entrypoint[1]);
  const start = (args: readonly string[]): string => {
    if (platform === 'linux/arm64') {
      // -L: the arm64 loader and libraries are looked up in the image, not on this machine.
      return run(arm64ToolsIn(opts.arm64Tools).qemu, ['-L', rootfs, node, ...args]);
    }
    const libraryPath = ['lib/x86_64-linux-gnu', 'usr/lib/x86_64-linux-gnu']
      .map((d) => join(rootfs, d))
      .join(':');
    const loader = join(rootfs, 'lib64', 'ld-linux-x86-64.so.2');
    return run(loader, ['--library-path', libraryPath, node, ...args]);
  };
  const nodeVersion = start(['--version']).trim();
  const version = start([controller, '--version']);
  const help = start([controller, '--help']);
  for (const expected of [`v${opts.stamp.version}`, opts.stamp.revision]) {
    if (!version.includes(expected)) {
      throw new Error(`${platform} ${name} image: --version lacks "${expected}":\n${version}`);
    }
  }
  if (!help.includes(name)) {
    throw new Error(`${platform} ${name} image: --help printed no usage:\n${help}`);
  }
  rmSync(rootfs, { recursive: true });
  const how = platform === 'linux/arm64' ? 'under qemu-aarch64-static' : 'through its own loader';
  return `${platform} ${name} ${how}: node ${nodeVersion}, --version and --help`;
}

function normalizeModes(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) normalizeModes(path);
    else chmodSync(path, statSync(path).mode & 0o111 ? 0o755 : 0o644);
  }
}

/** Node's build home (bin/node, LICENSE) from the path of its bin/node. */
export const homeOf = (node: string): string => dirname(dirname(node));
