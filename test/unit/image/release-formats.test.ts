import assert from 'node:assert/strict';
import { openSync, readSync, closeSync } from 'node:fs';
import { describe, it } from 'node:test';
import {
  PLUGIN_PLATFORMS,
  executableKind,
  krewManifest,
  machoHasCodeSignature,
  missingStampFields,
  parseNodeVersions,
  pluginArchiveName,
  sha256sums,
} from '../../../image/release-formats.ts';

function elfHeader(machine: number, elfClass = 2): Uint8Array {
  const header = new Uint8Array(64);
  header.set([0x7f, 0x45, 0x4c, 0x46, elfClass, 1]);
  new DataView(header.buffer).setUint16(18, machine, true);
  return header;
}

/** A thin 64-bit Mach-O header followed by load commands of the given types (16 bytes each). */
function machO(cpu: number, commands: readonly number[] = []): Uint8Array {
  const bytes = new Uint8Array(32 + commands.length * 16);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0xfeedfacf, true);
  view.setUint32(4, cpu, true);
  view.setUint32(16, commands.length, true);
  view.setUint32(20, commands.length * 16, true);
  commands.forEach((command, i) => {
    view.setUint32(32 + i * 16, command, true);
    view.setUint32(36 + i * 16, 16, true);
  });
  return bytes;
}

const STAMP = { version: '0.1.0', revision: 'abc123', buildDate: '2026-12-06T22:26:32Z' };
const SHA = 'a'.repeat(64);
const allShas = new Map(PLUGIN_PLATFORMS.map((p) => [pluginArchiveName(p), SHA]));

describe('release: executable formats', () => {
  it('tells ELF and Mach-O apart, and x86-64 from arm64', () => {
    assert.deepEqual(executableKind(elfHeader(0x3e)), { format: 'ELF', arch: 'amd64' });
    assert.deepEqual(executableKind(elfHeader(0xb7)), { format: 'ELF', arch: 'arm64' });
    assert.deepEqual(executableKind(machO(0x01000007)), { format: 'Mach-O', arch: 'amd64' });
    assert.deepEqual(executableKind(machO(0x0100000c)), { format: 'Mach-O', arch: 'arm64' });
  });

  it('reads the Node that runs this test as a linux/amd64 ELF', () => {
    const header = Buffer.alloc(64);
    const fd = openSync(process.execPath, 'r');
    readSync(fd, header, 0, 64, 0);
    closeSync(fd);
    const arch = process.arch === 'arm64' ? 'arm64' : 'amd64';
    assert.deepEqual(executableKind(header), { format: 'ELF', arch });
  });

  it('says what it found when it is neither', () => {
    assert.throws(() => executableKind(elfHeader(0x3e, 1)), /not 64-bit little-endian/);
    assert.throws(() => executableKind(elfHeader(0x28)), /ELF machine 0x28/);
    assert.throws(() => executableKind(machO(0x12)), /Mach-O CPU type 0x12/);
    assert.throws(() => executableKind(Buffer.from('#!/bin/sh\nexec node main.js\n')), /magic/);
    assert.throws(() => executableKind(new Uint8Array(4)), /not an executable/);
  });

  it('finds a code signature among the Mach-O load commands', () => {
    assert.equal(machoHasCodeSignature(machO(0x0100000c, [0x19, 0x1d, 0x2])), true);
    assert.equal(machoHasCodeSignature(machO(0x0100000c, [0x19, 0x2])), false);
    assert.throws(() => machoHasCodeSignature(elfHeader(0x3e)), /not a 64-bit Mach-O/);
    const truncated = machO(0x0100000c, [0x19, 0x2]).subarray(0, 40);
    assert.throws(() => machoHasCodeSignature(truncated), /run past the file/);
  });

  it('finds the stamp as esbuild writes it into the bundle, and names what is missing', () => {
    const bundle = Buffer.from(
      'x={version:"0.1.0",revision:"abc123",buildDate:"2026-12-06T22:26:32Z"}',
    );
    assert.deepEqual(missingStampFields(bundle, STAMP), []);
    assert.deepEqual(missingStampFields(bundle, { ...STAMP, revision: 'def456' }), ['revision']);
    assert.deepEqual(missingStampFields(Buffer.from('node'), STAMP), [
      'version',
      'revision',
      'buildDate',
    ]);
  });
});

describe('release: krew manifest', () => {
  const template = {
    apiVersion: 'krew.googlecontainertools.github.com/v1alpha2',
    kind: 'Plugin',
    metadata: { name: 'stepwise' },
    spec: { version: 'v0.0.0', shortDescription: 'kept', platforms: [] },
  };

  it('has every platform, with its archive URL, its SHA-256 and the licence', () => {
    const manifest = krewManifest(template, '1.2.3', 'https://example.test/v1.2.3', allShas) as {
      spec: { version: string; shortDescription: string; platforms: Record<string, unknown>[] };
    };
    assert.equal(manifest.spec.version, 'v1.2.3');
    assert.equal(manifest.spec.shortDescription, 'kept');
    assert.deepEqual(manifest.spec.platforms[3], {
      selector: { matchLabels: { os: 'darwin', arch: 'arm64' } },
      uri: 'https://example.test/v1.2.3/kubectl-stepwise-darwin-arm64.tar.gz',
      sha256: SHA,
      files: [
        { from: 'kubectl-stepwise', to: '.' },
        { from: 'LICENSE', to: '.' },
      ],
      bin: 'kubectl-stepwise',
    });
    assert.equal(manifest.spec.platforms.length, 4);
  });

  it('refuses a missing or malformed SHA-256 and a URL krew would not fetch', () => {
    const without = new Map(allShas);
    without.delete('kubectl-stepwise-linux-arm64.tar.gz');
    assert.throws(() => krewManifest(template, '1.2.3', 'https://x.test', without), /linux-arm64/);
    const short = new Map(allShas).set('kubectl-stepwise-linux-amd64.tar.gz', 'abc');
    assert.throws(() => krewManifest(template, '1.2.3', 'https://x.test', short), /linux-amd64/);
    assert.throws(() => krewManifest(template, '1', 'http://x.test', allShas), /https/);
    assert.throws(() => krewManifest(template, '1', 'https://x.test/', allShas), /trailing/);
    assert.throws(() => krewManifest({}, '1', 'https://x.test', allShas), /no spec/);
  });

  it('writes SHA256SUMS as sha256sum -c reads it, sorted by name', () => {
    const sums = sha256sums(
      new Map([
        ['b.tgz', SHA],
        ['a.tgz', 'b'.repeat(64)],
      ]),
    );
    assert.equal(sums, `${'b'.repeat(64)}  a.tgz\n${SHA}  b.tgz\n`);
  });
});

describe('release: Node versions by platform', () => {
  const all = 'linux/amd64=24.22.3,linux/arm64=24.22.3,darwin/amd64=24.18.1,darwin/arm64=24.0.0';

  it('reads one version for each platform', () => {
    assert.deepEqual(parseNodeVersions(all), {
      'linux/amd64': '24.22.3',
      'linux/arm64': '24.22.3',
      'darwin/amd64': '24.18.1',
      'darwin/arm64': '24.0.0',
    });
  });

  it('refuses a missing, repeated, unknown or malformed entry', () => {
    assert.throws(
      () => parseNodeVersions('linux/amd64=24.22.3'),
      /no Node version for linux\/arm64/,
    );
    assert.throws(() => parseNodeVersions(`${all},linux/amd64=24.1.0`), /given twice/);
    assert.throws(() => parseNodeVersions(`${all},windows/amd64=24.1.0`), /not a release platform/);
    assert.throws(() => parseNodeVersions('linux/amd64=24'), /os\/arch=MAJOR/);
  });
});
