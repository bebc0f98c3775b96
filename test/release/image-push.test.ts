/**
 * The release's OCI layout as a registry receives it: pushed with crane into crane's in-memory
 * registry on loopback, the tag resolves to the index digest make release printed, and each
 * platform pulls its own image. Run by `make release` (test/release/), not by `make test`.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

const dir = process.env.STEPWISE_RELEASE_DIR;
if (!dir) throw new Error('STEPWISE_RELEASE_DIR must name the folder make release wrote');
const releaseDir: string = dir;

function run(command: string, args: readonly string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  assert.equal(result.status, 0, `${command} ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

describe('the released image in a registry', () => {
  const crane = join(run('image/tools.sh', ['crane']).trim(), 'crane');
  const layout = mkdtempSync(join(tmpdir(), 'stepwise-oci-'));
  const registry = spawn(crane, ['registry', 'serve', '--address', '127.0.0.1:0'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let address = '';

  before(async () => {
    address = await new Promise<string>((resolve, reject) => {
      let seen = '';
      registry.stderr.setEncoding('utf8');
      registry.stderr.on('data', (chunk: string) => {
        seen += chunk;
        const port = /serving on port (\d+)/.exec(seen)?.[1];
        if (port) resolve(`127.0.0.1:${port}`);
      });
      registry.once('exit', (code) => reject(new Error(`crane registry exited ${code}: ${seen}`)));
    });
  });
  after(() => {
    registry.kill('SIGTERM');
    rmSync(layout, { recursive: true, force: true });
  });

  it('keeps the index digest when pushed, and serves each platform its own image', () => {
    const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string })
      .version;
    run('tar', ['-xf', join(releaseDir, `stepwise-controller-${version}.oci.tar`), '-C', layout]);
    const ref = `${address}/stepwise-controller:${version}`;
    // As docs/installation.md says to push it.
    run(crane, ['push', layout, ref]);
    const expected = readFileSync(join(releaseDir, 'image-index-digest'), 'utf8').trim();
    assert.equal(run(crane, ['digest', ref]).trim(), expected);
    for (const arch of ['amd64', 'arm64']) {
      const config = JSON.parse(run(crane, ['config', ref, '--platform', `linux/${arch}`])) as {
        architecture: string;
        os: string;
      };
      assert.deepEqual([config.os, config.architecture], ['linux', arch]);
    }
  });
});
