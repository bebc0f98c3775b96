/**
 * The Dockerfile's image holds the files `make image`'s does: its stage runs the Dockerfile's
 * own staging command (image/build.ts --stage-only) here, and the file list, with modes, must
 * equal the release's linux/amd64 image's. Run by `make release` (it needs the release folder
 * and a compile: about a minute), not by `make test`; test/unit/image/dockerfile.test.ts keeps
 * the config (entrypoint, user, environment) equal without building anything.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const dir = process.env.STEPWISE_RELEASE_DIR;
if (!dir) throw new Error('STEPWISE_RELEASE_DIR must name the folder make release wrote');
const releaseDir: string = dir;
const nodeHome = process.env.STEPWISE_RELEASE_NODE_HOME;
if (!nodeHome) throw new Error('STEPWISE_RELEASE_NODE_HOME must name the linux/amd64 Node build');

function run(command: string, args: readonly string[], cwd?: string): string {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** "mode path" per entry of a tar listing, directories without their trailing slash. */
function tarEntries(listing: string): string[] {
  return listing
    .trim()
    .split('\n')
    .map((line) => {
      const [mode = '', , , , , ...rest] = line.split(/\s+/);
      const path = rest.join(' ').replace(/^\.\//, '').replace(/\/$/, '');
      return { mode, path };
    })
    .filter(({ path }) => path !== '' && path !== '.') // the root itself: not an entry of a layer
    .map(({ mode, path }) => `${mode} ${path}`);
}

describe('the Dockerfile', () => {
  it("stages the same files, with the same modes, as the release's linux/amd64 image", () => {
    const dockerfile = readFileSync('Dockerfile', 'utf8').replace(/\\\n/g, ' ');
    const command = /node (--disable-warning=\S+ )?image\/build\.ts --stage-only [^\n]*/.exec(
      dockerfile,
    )?.[0];
    assert.ok(command, 'the Dockerfile runs image/build.ts --stage-only');
    const args = command
      .split(/\s+/)
      .slice(1)
      .map((arg) =>
        arg
          .replace('--node-home=/node', `--node-home=${nodeHome}`)
          .replace('--platform=linux/$TARGETARCH', '--platform=linux/amd64'),
      );
    const out = mkdtempSync(join(tmpdir(), 'stepwise-dockerfile-'));
    try {
      run(process.execPath, [...args.map((a) => a.replace('--out=/out', `--out=${out}`))]);
      const staged = tarEntries(run('tar', ['-cvvf', '/dev/null', '-C', join(out, 'rootfs'), '.']));

      const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
        .version;
      const layout = `stepwise-controller-${version}.oci.tar`;
      const blob = (digest: string): Buffer =>
        spawnSync('tar', ['-xOf', layout, `blobs/${digest.replace(':', '/')}`], {
          cwd: releaseDir,
          maxBuffer: 512 * 1024 * 1024,
        }).stdout;
      const top = JSON.parse(
        blob(readFileSync(join(releaseDir, 'image-index-digest'), 'utf8').trim()).toString(),
      ) as {
        manifests: { digest: string; platform: { architecture: string } }[];
      };
      const amd64 = top.manifests.find((m) => m.platform.architecture === 'amd64');
      assert.ok(amd64);
      const manifest = JSON.parse(blob(amd64.digest).toString()) as {
        layers: { digest: string }[];
      };
      const imaged = manifest.layers.flatMap((layer) => {
        const listing = spawnSync('tar', ['-tvzf', '-'], {
          input: blob(layer.digest),
          encoding: 'utf8',
          maxBuffer: 256 * 1024 * 1024,
        }).stdout;
        return tarEntries(listing);
      });
      assert.deepEqual([...new Set(imaged)].sort(), [...new Set(staged)].sort());
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
