/**
 * helm v4, built from its Go module by test/helm/build.sh into the cache (`make e2e` builds it
 * first; a test run without it builds it here), run as a child process with cache, config and
 * data directories of its own: tests never read or write a person's ~/.config/helm.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../cluster/state.ts';
import { runCommand } from './kubectl.ts';
import type { CommandOptions, CommandRun } from './kubectl.ts';

export const CHART_DIR = join(REPO_ROOT, 'deploy', 'helm', 'stepwise');

let binary: string | undefined;
let home: string | undefined;

/** The helm binary; build.sh prints the directory it is in (building it only when missing). */
export function helmBinary(): string {
  binary ??= join(
    execFileSync(join(REPO_ROOT, 'test', 'helm', 'build.sh'), {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim(),
    'helm',
  );
  return binary;
}

function helmHome(): string {
  if (home === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'stepwise-helm-home-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    home = dir;
  }
  return home;
}

export function helm(args: readonly string[], opts: CommandOptions = {}): Promise<CommandRun> {
  const dir = helmHome();
  return runCommand(helmBinary(), args, {
    ...opts,
    env: {
      HELM_CACHE_HOME: join(dir, 'cache'),
      HELM_CONFIG_HOME: join(dir, 'config'),
      HELM_DATA_HOME: join(dir, 'data'),
      ...opts.env,
    },
  });
}

/** Chart values by their dotted path (`{ 'approvals.enabled': false }`). */
export type HelmValues = Readonly<Record<string, string | number | boolean>>;

/** `--set` arguments for `values`. */
export function setArgs(values: HelmValues): string[] {
  return Object.entries(values).flatMap(([key, value]) => ['--set', `${key}=${String(value)}`]);
}
