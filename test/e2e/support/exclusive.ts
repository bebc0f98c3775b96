/**
 * A readers-writer lock across the end-to-end files that `make e2e` runs side by side. Most files
 * keep to their own namespaces and their own controller instance (support/isolation.ts); a few
 * rely on cluster-scoped objects of deploy/ (admission policies, ClusterRoles). Those that only
 * apply them, identically, share the lock; those that remove or replace them (helm.test.ts
 * uninstalls the release that owns them, the identity-policy test deletes the policy) hold it
 * alone, for as long as the file runs. A waiting exclusive holder goes first: new sharers wait
 * behind it. State lives under .stepwise/locks/<name>.* as files named by pid; an entry whose
 * process has died (a killed run) is ignored and removed.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive } from '../../cluster/orphans.ts';
import { sleep } from '../../cluster/poll.ts';
import { STATE_DIR } from '../../cluster/state.ts';

/** deploy/'s cluster-scoped objects: admission policies, ClusterRoles (helm, approvals). */
export const DEPLOY_CLUSTER_OBJECTS = 'deploy-cluster-objects';

const LOCK_DIR = join(STATE_DIR, 'locks');
const POLL_MS = 250;

/** Shared: the file applies the objects as they ship and changes them in no other way. */
export type LockMode = 'shared' | 'exclusive';

/**
 * Waits until lock `name` can be held in `mode`, then holds it until this process exits (the
 * test file's end). Says on stderr how long it waited, when it had to.
 */
export async function holdForThisFile(name: string, mode: LockMode = 'exclusive'): Promise<void> {
  const base = join(LOCK_DIR, name);
  const holders = { shared: `${base}.shared`, exclusive: `${base}.exclusive` };
  const waiting = `${base}.waiting`;
  for (const dir of [holders.shared, holders.exclusive, waiting])
    mkdirSync(dir, { recursive: true });
  const me = String(process.pid);
  const mine = join(holders[mode], me);
  const started = Date.now();
  if (mode === 'exclusive') writeFileSync(join(waiting, me), '');
  for (;;) {
    const taken = await withMutex(`${base}.mutex`, () => {
      const blocked =
        alivePids(holders.exclusive).length > 0 ||
        (mode === 'exclusive'
          ? alivePids(holders.shared).length > 0
          : alivePids(waiting).length > 0);
      if (!blocked) writeFileSync(mine, '');
      return !blocked;
    });
    if (taken) break;
    await sleep(POLL_MS);
  }
  if (mode === 'exclusive') rmSync(join(waiting, me), { force: true });
  process.once('exit', () => rmSync(mine, { force: true }));
  const waited = Date.now() - started;
  if (waited > POLL_MS) {
    process.stderr.write(
      `# waited ${(waited / 1000).toFixed(1)} s for the ${name} lock (${mode})\n`,
    );
  }
}

/** The pids with an entry in `dir` whose process still runs; dead ones' entries are removed. */
function alivePids(dir: string): number[] {
  return readdirSync(dir).flatMap((entry) => {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return [pid];
    rmSync(join(dir, entry), { force: true });
    return [];
  });
}

/** Runs `fn` holding a short-lived mutex (a directory: mkdir is atomic) around the checks. */
async function withMutex<T>(dir: string, fn: () => T): Promise<T> {
  for (;;) {
    try {
      mkdirSync(dir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (!ownerAlive(dir)) rmSync(dir, { recursive: true, force: true });
      else await sleep(10);
    }
  }
  try {
    writeFileSync(join(dir, 'pid'), String(process.pid));
    return fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * False when the mutex's owner is gone. One made a moment ago may have no pid yet: it counts as
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
