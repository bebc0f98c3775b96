/**
 * Argo CD's own Lua for `argoproj.io` Rollouts (health.lua, discovery.lua and the actions), as
 * its Go module ships them: test/cluster/argocd/lua.sh copies them into the cache on first use.
 * The in-place tests run them on the argoproj.io Rollouts Stepwise serves, as Argo CD would.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../cluster/state.ts';

export interface ArgoCdRolloutLua {
  readonly health: string;
  readonly discovery: string;
  /** By action name: abort, pause, promote-full, restart, resume, retry, skip-current-step. */
  readonly actions: Readonly<Record<string, string>>;
}

let cached: ArgoCdRolloutLua | undefined;

export function argoCdRolloutLua(): ArgoCdRolloutLua {
  if (cached) return cached;
  const out = execFileSync('bash', [join(REPO_ROOT, 'test', 'cluster', 'argocd', 'lua.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const dir = join(out.trim().split('\n').at(-1) ?? '', 'Rollout');
  const read = (...p: string[]): string => readFileSync(join(dir, ...p), 'utf8');
  const names = readdirSync(join(dir, 'actions'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  cached = {
    health: read('health.lua'),
    discovery: read('actions', 'discovery.lua'),
    actions: Object.fromEntries(names.map((n) => [n, read('actions', n, 'action.lua')])),
  };
  return cached;
}
