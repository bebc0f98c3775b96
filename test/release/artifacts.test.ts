/**
 * The folder `make release` wrote (STEPWISE_RELEASE_DIR), as a user receives it. Run by
 * `make release` after it builds, not by `make test`: the artifacts take minutes to make.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import {
  PLUGIN_BINARY,
  PLUGIN_PLATFORMS,
  executableKind,
  expectedKind,
  pluginArchiveName,
} from '../../image/release-formats.ts';

const dir = process.env.STEPWISE_RELEASE_DIR;
if (!dir) throw new Error('STEPWISE_RELEASE_DIR must name the folder make release wrote');
const releaseDir: string = dir;

const sha256 = (file: string): string =>
  createHash('sha256')
    .update(readFileSync(join(releaseDir, file)))
    .digest('hex');

function tar(args: readonly string[]): Buffer {
  const result = spawnSync('tar', args, { cwd: releaseDir, maxBuffer: 512 * 1024 * 1024 });
  assert.equal(result.status, 0, `tar ${args.join(' ')}: ${result.stderr.toString()}`);
  return result.stdout;
}

interface KrewPlatform {
  selector: { matchLabels: { os: string; arch: string } };
  uri: string;
  sha256: string;
  bin: string;
  files: { from: string; to: string }[];
}

describe('the release folder', () => {
  it('has SHA256SUMS for every other file, and each sum is right', () => {
    const listed = readFileSync(join(releaseDir, 'SHA256SUMS'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split('  ') as [string, string]);
    const files = readdirSync(releaseDir).filter((f) => f !== 'SHA256SUMS');
    assert.deepEqual(listed.map(([, f]) => f).sort(), files.sort());
    for (const [sum, file] of listed) assert.equal(sum, sha256(file), file);
  });

  it('has a krew manifest whose four platforms point at their archives with their SHA-256', () => {
    const manifest = load(readFileSync(join(releaseDir, 'stepwise.krew.yaml'), 'utf8')) as {
      kind: string;
      metadata: { name: string };
      spec: { version: string; platforms: KrewPlatform[] };
    };
    assert.equal(manifest.kind, 'Plugin');
    assert.equal(manifest.metadata.name, 'stepwise');
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
      .version;
    assert.equal(manifest.spec.version, `v${version}`);
    assert.deepEqual(
      manifest.spec.platforms.map(
        (p) => `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`,
      ),
      ['linux/amd64', 'linux/arm64', 'darwin/amd64', 'darwin/arm64'],
    );
    for (const platform of manifest.spec.platforms) {
      const archive = pluginArchiveName(platform.selector.matchLabels as never);
      assert.match(platform.uri, new RegExp(`^https://\\S+/v${version}/${archive}$`));
      assert.equal(platform.sha256, sha256(archive), archive);
      assert.equal(platform.bin, PLUGIN_BINARY);
      assert.deepEqual(platform.files.map((f) => f.from).sort(), ['LICENSE', PLUGIN_BINARY]);
    }
  });

  for (const platform of PLUGIN_PLATFORMS) {
    const archive = pluginArchiveName(platform);
    it(`${archive} holds the licence and an executable for ${platform.os}/${platform.arch}`, () => {
      assert.deepEqual(tar(['-tzf', archive]).toString().trim().split('\n'), [
        'LICENSE',
        PLUGIN_BINARY,
      ]);
      const listing = tar(['-tvzf', archive, PLUGIN_BINARY]).toString();
      assert.match(listing, /^-rwxr-xr-x 0\/0 /);
      const binary = tar(['-xOzf', archive, PLUGIN_BINARY]);
      assert.deepEqual(executableKind(binary.subarray(0, 64)), expectedKind(platform));
    });
  }

  it('has the chart as helm package makes it, at the package version', () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
      .version;
    const chart = `stepwise-${version}.tgz`;
    const entries = tar(['-tzf', chart]).toString().split('\n');
    assert.ok(entries.includes('stepwise/Chart.yaml'), entries.join(', '));
    assert.ok(entries.includes('stepwise/values.schema.json'));
    assert.match(
      tar(['-xOzf', chart, 'stepwise/Chart.yaml']).toString(),
      new RegExp(`^version: ${version}$`, 'm'),
    );
  });

  for (const [name, digestFile, bundle] of [
    ['stepwise-controller', 'image-index-digest', 'controller.mjs'],
    ['stepwise-demo', 'demo-image-index-digest', 'demo-app.mjs'],
  ] as const) {
    it(`has the ${name} image as an OCI index of linux/amd64 and linux/arm64, digest as written`, () => {
      const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
        .version;
      const layout = `${name}-${version}.oci.tar`;
      const top = JSON.parse(tar(['-xOf', layout, 'index.json']).toString()) as {
        manifests: { mediaType: string; digest: string; annotations: Record<string, string> }[];
      };
      assert.equal(top.manifests.length, 1);
      const [entry] = top.manifests;
      assert.equal(entry?.mediaType, 'application/vnd.oci.image.index.v1+json');
      assert.equal(entry.annotations['org.opencontainers.image.ref.name'], version);
      assert.equal(readFileSync(join(releaseDir, digestFile), 'utf8').trim(), entry.digest);
      const blob = (digest: string): Buffer =>
        tar(['-xOf', layout, `blobs/${digest.replace(':', '/')}`]);
      const indexBytes = blob(entry.digest);
      assert.equal(`sha256:${createHash('sha256').update(indexBytes).digest('hex')}`, entry.digest);
      const index = JSON.parse(indexBytes.toString()) as {
        manifests: { digest: string; platform: { os: string; architecture: string } }[];
      };
      assert.deepEqual(
        index.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`),
        ['linux/amd64', 'linux/arm64'],
      );
      for (const { digest, platform } of index.manifests) {
        const manifest = JSON.parse(blob(digest).toString()) as { config: { digest: string } };
        const config = JSON.parse(blob(manifest.config.digest).toString()) as {
          architecture: string;
          os: string;
          config: { Entrypoint: string[]; User: string };
        };
        assert.equal(`${config.os}/${config.architecture}`, `linux/${platform.architecture}`);
        assert.deepEqual(config.config.Entrypoint, [
          '/nodejs/bin/node',
          `/app/dist/bundle/${bundle}`,
        ]);
        assert.equal(config.config.User, '65532:65532');
        // The docker-load archive of the same platform holds the same config (the same image).
        const archive = `${name}-linux-${platform.architecture}.tar`;
        const [loaded] = JSON.parse(tar(['-xOf', archive, 'manifest.json']).toString()) as {
          Config: string;
        }[];
        assert.equal(loaded?.Config, manifest.config.digest);
      }
    });
  }
});
