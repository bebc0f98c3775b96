/**
 * The build stamp of src/api/version.ts: version, commit and build date, read here at build time
 * (git runs now, never in the built program) and handed to esbuild as `define`.
 *
 *   node image/stamp.ts     prints the stamp as JSON (make plugin-binary passes it to esbuild)
 *
 * The date is SOURCE_DATE_EPOCH's, else the last commit's: the same commit gives the same stamp,
 * so the image stays reproducible.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildInfo } from '../src/api/version.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

function git(args: readonly string[]): string {
  const result = spawnSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.error) throw new Error(`git: ${result.error.message}`);
  if (result.status !== 0) {
    throw new Error(`git ${args.join(' ')} exited with ${result.status}: ${result.stderr.trim()}`);
  }
  return result.stdout.trim();
}

/** SOURCE_DATE_EPOCH when set (the reproducible-builds convention), else the last commit's. */
export function sourceDateEpoch(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.SOURCE_DATE_EPOCH ?? git(['log', '-1', '--format=%ct']);
  const epoch = Number(text);
  if (text === '' || !Number.isInteger(epoch) || epoch < 0) {
    throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got "${text}"`);
  }
  return epoch;
}

/**
 * HEAD's commit, `-dirty` when tracked files differ from it; STEPWISE_REVISION when set, for a
 * build without the repository's history (the Dockerfile's context has no .git).
 */
export function revision(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STEPWISE_REVISION) return env.STEPWISE_REVISION;
  const commit = git(['rev-parse', 'HEAD']);
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
  return dirty ? `${commit}-dirty` : commit;
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** The stamp from its parts (pure: the unit tests call it). */
export function stampOf(version: string, commit: string, epoch: number): BuildInfo {
  return {
    version,
    revision: commit,
    buildDate: new Date(epoch * 1000).toISOString().replace(/\.000Z$/, 'Z'),
  };
}

export function buildStamp(epoch = sourceDateEpoch()): BuildInfo {
  return stampOf(packageVersion(), revision(), epoch);
}

/** esbuild's `define` for the stamp: the identifier version.ts reads, as an object literal. */
export function stampDefine(stamp: BuildInfo): Record<string, string> {
  return { STEPWISE_BUILD: JSON.stringify(stamp) };
}

if (import.meta.main) process.stdout.write(`${JSON.stringify(buildStamp())}\n`);
