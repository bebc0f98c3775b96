/**
 * The plugin as single executables for linux and darwin × amd64 and arm64 (Node's single
 * executable applications), built on one linux/amd64 machine: each platform's official Node
 * build from the npm registry, with the bundled plugin injected by postject.
 *
 * The injected blob is made by a linux/amd64 Node of the same version as the target's (the blob
 * format belongs to the version), without V8's code cache: that cache is valid for one
 * architecture and one V8 build only (Node's docs: cross-platform blobs are made with
 * useCodeCache false), and it differs from one build to the next, which a reproducible release
 * cannot have (`make plugin-binary`, for this machine only, keeps it).
 *
 * Mach-O binaries lose Node's signature before injection (Node's docs: `codesign
 * --remove-signature`; macho-unsign does it here) and are left unsigned: no tool that signs
 * Mach-O is installable from Debian, the Go module proxy or npm (checked: ldid and rcodesign are
 * not packaged, quill is not served), so macOS users sign ad hoc (docs/installation.md, "A release").
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { unsign } from 'macho-unsign';
import {
  PLUGIN_BINARY,
  executableKind,
  expectedKind,
  machoHasCodeSignature,
  missingStampFields,
  pluginArchiveName,
} from './release-formats.ts';
import type { PluginPlatform } from './release-formats.ts';
import { tarArguments } from './rootfs.ts';
import type { BuildInfo } from '../src/api/version.ts';

/** The fuse postject flips from :0 to :1 so that Node runs the blob instead of its own CLI. */
export const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

export function run(command: string, args: readonly string[], cwd?: string): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (result.error) throw new Error(`${command}: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status ?? result.signal}:\n` +
        `${result.stdout}${result.stderr}`.trim(),
    );
  }
  return result.stdout;
}

/**
 * Node's official build for a platform (the registry's package, checked against its integrity
 * by npm), unpacked once into the cache. Returns the path of its bin/node.
 */
export function nodeBuild(cache: string, nodePackage: string, version: string): string {
  const home = join(cache, 'node-builds', `${nodePackage}-${version}`);
  const node = join(home, 'bin', 'node');
  if (existsSync(node)) return node;
  const tmp = `${home}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  run('npm', ['pack', '--silent', `${nodePackage}@${version}`], tmp);
  run('tar', ['xzf', `${nodePackage}-${version}.tgz`], tmp);
  rmSync(home, { recursive: true, force: true });
  renameSync(join(tmp, 'package'), home);
  rmSync(tmp, { recursive: true });
  if (!existsSync(node)) throw new Error(`${nodePackage}@${version} has no bin/node`);
  return node;
}

/** The SEA blob of `bundle`, made by `generator` (a Node that runs here). */
export function seaBlob(generator: string, bundle: string, out: string): void {
  const config = `${out}.json`;
  writeFileSync(
    config,
    JSON.stringify({
      main: bundle,
      output: out,
      disableExperimentalSEAWarning: true,
      useCodeCache: false,
    }),
  );
  run(generator, ['--experimental-sea-config', config]);
  rmSync(config);
}

/** postject's injection of the blob; Mach-O keeps it in a segment of its own (Node's docs). */
export function injectBlob(postject: string, binary: string, blob: string, macho: boolean): void {
  run(postject, [
    binary,
    'NODE_SEA_BLOB',
    blob,
    '--sentinel-fuse',
    SEA_FUSE,
    ...(macho ? ['--macho-segment-name', 'NODE_SEA'] : []),
  ]);
}

export interface BuiltPlugin {
  readonly platform: PluginPlatform;
  readonly binary: string;
  readonly archive: string;
}

/**
 * One platform's executable from its Node binary and the blob, checked for its format and
 * architecture, the flipped fuse and the stamp, then packed with the LICENSE into a
 * reproducible archive in `outDir`.
 */
export function buildPlugin(opts: {
  platform: PluginPlatform;
  node: string;
  blob: string;
  workDir: string;
  outDir: string;
  license: string;
  stamp: BuildInfo;
  epoch: number;
  postject: string;
}): BuiltPlugin {
  const { platform } = opts;
  const staging = join(opts.workDir, `${platform.os}-${platform.arch}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const binary = join(staging, PLUGIN_BINARY);
  if (platform.os === 'darwin') {
    const unsigned = unsign(readFileSync(opts.node));
    writeFileSync(binary, unsigned ? Buffer.from(unsigned) : readFileSync(opts.node));
  } else {
    copyFileSync(opts.node, binary);
  }
  chmodSync(binary, 0o755);
  injectBlob(opts.postject, binary, opts.blob, platform.os === 'darwin');
  checkPlugin(platform, binary, opts.stamp);
  copyFileSync(opts.license, join(staging, 'LICENSE'));
  chmodSync(join(staging, 'LICENSE'), 0o644);
  const archive = join(opts.outDir, pluginArchiveName(platform));
  const tar = archive.replace(/\.gz$/, '');
  run('tar', tarArguments(opts.epoch, staging, tar, [PLUGIN_BINARY, 'LICENSE']));
  rmSync(archive, { force: true });
  run('gzip', ['-n', '-9', tar]);
  return { platform, binary, archive };
}

/** What must hold of every platform's executable, whether or not it can run here. */
export function checkPlugin(platform: PluginPlatform, binary: string, stamp: BuildInfo): void {
  const bytes = readFileSync(binary);
  const kind = executableKind(bytes.subarray(0, 64));
  const expected = expectedKind(platform);
  if (kind.format !== expected.format || kind.arch !== expected.arch) {
    throw new Error(
      `${platform.os}/${platform.arch}: ${binary} is ${kind.format} ${kind.arch}, expected ` +
        `${expected.format} ${expected.arch}`,
    );
  }
  if (!bytes.includes(`${SEA_FUSE}:1`)) {
    throw new Error(`${platform.os}/${platform.arch}: the SEA fuse is not flipped in ${binary}`);
  }
  const missing = missingStampFields(bytes, stamp);
  if (missing.length > 0) {
    throw new Error(
      `${platform.os}/${platform.arch}: ${binary} lacks the stamp's ${missing.join(', ')}`,
    );
  }
  if (kind.format === 'Mach-O' && machoHasCodeSignature(bytes)) {
    throw new Error(
      `${platform.os}/${platform.arch}: ${binary} keeps a signature that no longer matches`,
    );
  }
}
