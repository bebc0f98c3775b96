// Owner records, so that a cluster whose owner died without cleaning up (SIGKILL, OOM, a
// crashed CI step) is removed by the next start instead of running forever.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sleep } from './poll.ts';

export const DATA_DIR_PREFIX = 'stepwise-cluster-';
const RECORD = 'owner.json';

interface OwnerRecord {
  readonly ownerPid: number;
  readonly pids: readonly number[];
}

export function writeOwnerRecord(dataDir: string, pids: readonly number[]): void {
  const record: OwnerRecord = { ownerPid: process.pid, pids };
  writeFileSync(join(dataDir, RECORD), JSON.stringify(record));
}

/** True for a running process; a zombie (exited, not yet reaped by its parent) is not. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/PID/stat is "PID (COMM) STATE ...": COMM may hold spaces, so read after the ')'.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false; // exited between the two checks
  }
}

/**
 * Resolves once none of `pids` is alive, or after `timeoutMs` (the caller checks what is left).
 * A SIGKILL takes effect only when the process leaves the kernel: etcd inside an fsync on a busy
 * disk can outlive the signal by far more than a fixed pause. No event tells us of a process
 * that is not our child, so this polls.
 */
export async function waitForExit(pids: readonly number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(20);
}

/** Kills the processes of clusters under `parent` whose owner is gone; returns their dirs. */
export function reapOrphans(parent: string): string[] {
  const reaped: string[] = [];
  for (const entry of readdirSync(parent)) {
    if (!entry.startsWith(DATA_DIR_PREFIX)) continue;
    const dir = join(parent, entry);
    const record = readRecord(dir);
    if (record === undefined) {
      // A cluster that is still writing its record is young; an old dir without one is debris.
      if (ageMs(dir) > 10 * 60_000) rmSync(dir, { recursive: true, force: true });
      continue;
    }
    if (isAlive(record.ownerPid)) continue;
    for (const pid of record.pids) {
      // The pid may have been reused: only kill a process whose command line names this dir.
      if (commandLine(pid).includes(dir)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone already
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
    reaped.push(dir);
  }
  return reaped;
}

function readRecord(dir: string): OwnerRecord | undefined {
  const file = join(dir, RECORD);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as OwnerRecord;
  } catch {
    return undefined;
  }
}

function ageMs(dir: string): number {
  try {
    return Date.now() - statSync(dir).mtimeMs;
  } catch {
    return 0;
  }
}

/** Pids of live processes whose command line contains `text` (a data dir, say). */
export function processesMentioning(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => pid !== process.pid && commandLine(pid).includes(text));
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}
