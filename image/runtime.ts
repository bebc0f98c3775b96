/**
 * The image's runtime layer: Node, the shared libraries it links against with their Debian
 * copyright files, and /etc. For linux/amd64 they are the build machine's (ldd); for
 * linux/arm64 Debian's arm64 packages of the same versions, unpacked into a sysroot by
 * image/arm64-tools.sh, and the libraries are those the arm64 loader lists, run under qemu.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { NODE_PATH, etcFiles, lddFromLoaderList, parseLdd } from './rootfs.ts';

export type ImagePlatform = 'linux/amd64' | 'linux/arm64';

export function run(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n` +
        `${result.stdout}${result.stderr}`.trim(),
    );
  }
  return result.stdout;
}

/** Where the arm64 pieces are: Debian's arm64 libraries and qemu-aarch64-static. */
export interface Arm64Tools {
  readonly sysroot: string;
  readonly qemu: string;
}

export function arm64ToolsIn(dir: string): Arm64Tools {
  return { sysroot: join(dir, 'sysroot'), qemu: join(dir, 'qemu-aarch64-static') };
}

/**
 * The file behind `path` inside `root`: symbolic links are followed within it (Debian's
 * /lib/ld-linux-aarch64.so.1 points at an absolute path, which means the root's, not ours).
 */
export function resolveInRoot(root: string, path: string): string {
  let current = path;
  for (let hops = 0; hops < 40; hops++) {
    const onDisk = join(root, current);
    if (!lstatSync(onDisk).isSymbolicLink()) return onDisk;
    const target = readlinkSync(onDisk);
    current = isAbsolute(target) ? target : join(dirname(current), target);
  }
  throw new Error(`${path}: too many symbolic links under ${root}`);
}

/** Copies the file behind `path` in `root` (following links there) to the same path in staging. */
function copyAtSamePath(staging: string, path: string, root = '/'): void {
  const target = join(staging, path);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(root === '/' ? realpathSync(path) : resolveInRoot(root, path), target);
}

/** The platform this machine builds images for natively. */
export function hostPlatform(): ImagePlatform {
  return process.arch === 'arm64' ? 'linux/arm64' : 'linux/amd64';
}

/**
 * Stages the runtime from `nodeHome` (bin/node and LICENSE of Node's build for the image's
 * platform): with `arm64`, an arm64 Node on an x86-64 machine; else one that runs here.
 * Returns what it took, for the build's log.
 */
export function stageRuntime(staging: string, nodeHome: string, arm64?: Arm64Tools): string[] {
  const node = join(nodeHome, 'bin', 'node');
  mkdirSync(join(staging, dirname(NODE_PATH.slice(1))), { recursive: true });
  copyFileSync(node, join(staging, NODE_PATH.slice(1)));
  copyFileSync(join(nodeHome, 'LICENSE'), join(staging, 'nodejs', 'LICENSE'));

  let version: string;
  if (!arm64) {
    version = run(node, ['--version']).trim();
    const libraries = parseLdd(run('ldd', [node]));
    for (const lib of libraries) copyAtSamePath(staging, lib.path);
    // Their Debian packages' copyright files, as distroless ships them (glibc, libstdc++).
    for (const pkg of debianPackagesOf(libraries.map((l) => l.path))) {
      const copyright = `/usr/share/doc/${pkg}/copyright`;
      if (existsSync(copyright)) copyAtSamePath(staging, copyright);
    }
    stageEtc(staging);
    checkNode24(node, version);
    return [`Node ${version}`, ...libraries.map((l) => l.path)];
  }
  version = run(arm64.qemu, ['-L', arm64.sysroot, node, '--version']).trim();
  checkNode24(node, version);
  // The arm64 loader's own `--list` is ldd for it; under qemu it reads the sysroot's libraries.
  const loader = '/lib/ld-linux-aarch64.so.1';
  const listed = run(arm64.qemu, [
    '-L',
    arm64.sysroot,
    resolveInRoot(arm64.sysroot, loader),
    '--list',
    node,
  ]);
  const libraries = parseLdd(lddFromLoaderList(listed, arm64.sysroot));
  for (const lib of libraries) copyAtSamePath(staging, lib.path, arm64.sysroot);
  // The sysroot holds exactly the packages these libraries come from.
  const docs = join(arm64.sysroot, 'usr', 'share', 'doc');
  for (const pkg of readdirSync(docs).sort()) {
    if (existsSync(join(docs, pkg, 'copyright'))) {
      copyAtSamePath(staging, `/usr/share/doc/${pkg}/copyright`, arm64.sysroot);
    }
  }
  stageEtc(staging);
  return [`Node ${version} (linux/arm64, under qemu)`, ...libraries.map((l) => l.path)];
}

function checkNode24(node: string, version: string): void {
  if (!version.startsWith('v24.')) throw new Error(`${node} is ${version}, not Node 24`);
}

function stageEtc(staging: string): void {
  for (const [path, text] of Object.entries(etcFiles())) {
    mkdirSync(dirname(join(staging, path)), { recursive: true });
    writeFileSync(join(staging, path), text);
  }
  mkdirSync(join(staging, 'tmp'));
}

/** The Debian packages that own these files (by the path ldd gave, or behind the symlink). */
function debianPackagesOf(files: readonly string[]): string[] {
  const names = new Set<string>();
  for (const file of files) {
    for (const path of [file, realpathSync(file)]) {
      const result = spawnSync('dpkg-query', ['--search', path], { encoding: 'utf8' });
      const name = result.status === 0 ? result.stdout.split(':')[0]?.trim() : undefined;
      if (name) {
        names.add(name);
        break;
      }
    }
  }
  return [...names].sort();
}
