/**
 * A lock across the end-to-end files that `make e2e` runs side by side. Most files keep to their
 * own namespaces and their own controller instance (support/isolation.ts); a few change
 * cluster-scoped objects that another file relies on (helm.test.ts installs and uninstalls the
 * release that owns deploy/'s admission policy and ClusterRoles, which approvals.test.ts
 * applies and needs). Such files hold the same named lock for as long as they run, so they never
 * overlap. The lock is a directory under .stepwise/locks holding the owner's pid; one whose
 * owner has died (a killed run) is taken over.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../../cluster/orphans.ts';
import { sleep } from '../../cluster/poll.ts';
import { STATE_DIR } from '../../cluster/state.ts';

/** deploy/'s cluster-scoped objects: admission policy, ClusterRoles (helm, approvals). */
export const DEPLOY_CLUSTER_OBJECTS = 'deploy-cluster-objects';

const LOCK_DIR = join(STATE_DIR, 'locks');
const POLL_MS = 250;

/**
 * Waits until no other process holds lock `name`, then holds it until this process exits (the
 * test file's end). Says on stderr how long it waited, when it had to.
 */
export async function holdForThisFile(name: string): Promise<void> {
  const dir = join(LOCK_DIR, name);
  mkdirSync(LOCK_DIR, { recursive: true });
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!ownerAlive(dir)) rmSync(dir, { recursive: true, force: true });
      else await sleep(POLL_MS);
    }
  }
  writeFileSync(join(dir, 'pid'), String(process.pid));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const waited = Date.now() - started;
  if (waited > POLL_MS) {
    process.stderr.write(`# waited ${(waited / 1000).toFixed(1)} s for the ${name} lock\n`);
  }
}

/**
 * False when the lock's owner is gone. A lock made a moment ago may have no pid yet: it counts as
 * held, unless it has had none for 10 s (its maker died in between).
 */
function ownerAlive(dir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(dir, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(dir).mtimeMs < 10_000;
    } catch {
      return false; // released in the meantime
    }
  }
  return Number.isInteger(pid) && pid > 0 && isAlive(pid);
}
