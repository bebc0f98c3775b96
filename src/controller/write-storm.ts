/**
 * The write-storm guard: the shell's last line of defence against a planner bug. A planner that
 * is not a fixed point (issue 6: every pass refreshed the Progressing condition's lastUpdateTime)
 * writes a Rollout's status, sees its own write come back through the informer, plans again and
 * writes again: ~125 writes a second from one Rollout. The guard notices status writes that do
 * not describe progress and backs that Rollout off, so a bug costs a few writes, not a flood.
 *
 * "Progress" is what a user would call moving: the step (currentStepIndex), the pod hash
 * (currentPodHash, stableRS), the replica counts and the versions a blue-green's Services select. More than STORM_MAX_WRITES status writes
 * within STORM_WINDOW_MS with none of those changing is a storm. Then status writes are
 * suppressed; once the backoff has passed, one write is let through (a probe: a real change of
 * phase or condition, such as the progress deadline, still lands, only late), and the backoff
 * doubles up to STORM_BACKOFF_MAX_MS. The storm ends when those fields move, or when the planner
 * has planned no status write for a whole window (counted from when the probe was due).
 *
 * Pure logic: time comes in as epoch milliseconds from the caller's Clock.
 */
import type { RolloutStatus } from '../api/index.ts';

/** A normal canary writes its status a few times per step at most (step, pause, counts). */
export const STORM_MAX_WRITES = 5;
/** ... within this window; a storm is dozens of writes a second, so it is found in milliseconds. */
export const STORM_WINDOW_MS = 10_000;
/** First delay before a probe write is allowed. */
export const STORM_BACKOFF_BASE_MS = 1_000;
/** At most two writes a minute from a stormy Rollout; a real change waits at most this long. */
export const STORM_BACKOFF_MAX_MS = 30_000;

/** The status fields whose change is progress; anything else changing alone is not. */
const PROGRESS_FIELDS = [
  'currentStepIndex',
  'currentPodHash',
  'stableRS',
  'replicas',
  'updatedReplicas',
  'readyReplicas',
  'availableReplicas',
] as const satisfies readonly (keyof RolloutStatus)[];

export type StormDecision =
  /** Write it. */
  | { readonly kind: 'write' }
  /** Do not write; plan again after `retryAfterMs`. `started` is set on the first suppression
   *  of a storm (report it once), with the status fields that kept changing. */
  | {
      readonly kind: 'suppress';
      readonly retryAfterMs: number;
      readonly started?: { readonly writes: number; readonly fields: readonly string[] };
    };

/** Hooks for /metrics (see ControllerMetrics). */
export interface WriteStormMetrics {
  stormStarted(): void;
  writeSuppressed(): void;
}

/** The Warning event's message for a storm that has just started. */
export function stormMessage(started: { writes: number; fields: readonly string[] }): string {
  const fields =
    started.fields.length > 0
      ? `fields that kept changing: ${started.fields.join(', ')}`
      : 'the same status each time';
  return (
    `status written ${started.writes} times within ${STORM_WINDOW_MS / 1000}s without step, ` +
    `pod hash or replica counts changing (${fields}); status writes are backed off ` +
    `(${STORM_BACKOFF_BASE_MS / 1000}s doubling to ${STORM_BACKOFF_MAX_MS / 1000}s) until they do`
  );
}

interface Written {
  readonly at: number;
  /** Status fields that differ from the previous write (paths such as `message`). */
  readonly changed: readonly string[];
}

interface KeyState {
  progress: string;
  last: RolloutStatus;
  /** Writes since `progress` last changed, within the window. */
  recent: Written[];
  /** Time of the last planned status write, written or suppressed. */
  lastPlannedAt: number;
  storm?: { backoffMs: number; until: number };
}

/** One per reconciler. Keeps the last written status of each Rollout (for the diff). */
export class WriteStormGuard {
  readonly #keys = new Map<string, KeyState>();

  /** Call before a status write; `now` in epoch ms. */
  decide(key: string, status: RolloutStatus, now: number): StormDecision {
    const s = this.#keys.get(key);
    if (s === undefined) return { kind: 'write' };
    // Quiet since the last planned write, or since the probe we asked for was due.
    const quietFor = now - Math.max(s.lastPlannedAt, s.storm?.until ?? 0);
    s.lastPlannedAt = now;
    if (progressOf(status) !== s.progress || quietFor >= STORM_WINDOW_MS) {
      delete s.storm;
      return { kind: 'write' };
    }
    if (s.storm !== undefined) {
      if (now < s.storm.until) return { kind: 'suppress', retryAfterMs: s.storm.until - now };
      s.storm.backoffMs = Math.min(s.storm.backoffMs * 2, STORM_BACKOFF_MAX_MS);
      s.storm.until = now + s.storm.backoffMs;
      return { kind: 'write' }; // the probe
    }
    s.recent = s.recent.filter((w) => now - w.at < STORM_WINDOW_MS);
    if (s.recent.length < STORM_MAX_WRITES) return { kind: 'write' };
    s.storm = { backoffMs: STORM_BACKOFF_BASE_MS, until: now + STORM_BACKOFF_BASE_MS };
    return {
      kind: 'suppress',
      retryAfterMs: STORM_BACKOFF_BASE_MS,
      started: { writes: s.recent.length, fields: keptChanging(s.recent) },
    };
  }

  /** Call after a status write succeeded. */
  written(key: string, status: RolloutStatus, now: number): void {
    const progress = progressOf(status);
    const s = this.#keys.get(key);
    if (s === undefined || s.progress !== progress) {
      this.#keys.set(key, {
        progress,
        last: status,
        recent: [{ at: now, changed: [] }],
        lastPlannedAt: now,
      });
      return;
    }
    s.recent.push({ at: now, changed: statusDiff(s.last, status) });
    s.last = status;
    s.lastPlannedAt = now;
  }

  /** The Rollout is gone. */
  forget(key: string): void {
    this.#keys.delete(key);
  }
}

function progressOf(status: RolloutStatus): string {
  // A blue-green moves by its Services too: which version each one serves is progress.
  const served = [
    status.blueGreen?.activeSelector ?? null,
    status.blueGreen?.previewSelector ?? null,
  ];
  return JSON.stringify([...PROGRESS_FIELDS.map((f) => status[f] ?? null), ...served]);
}

/**
 * The fields that changed in at least two of the recent writes ("kept changing"); if none did,
 * every field that changed; if nothing changed at all, the status was written identically again.
 */
function keptChanging(recent: readonly Written[]): readonly string[] {
  const counts = new Map<string, number>();
  for (const w of recent) for (const f of w.changed) counts.set(f, (counts.get(f) ?? 0) + 1);
  const repeated = [...counts].filter(([, n]) => n >= 2).map(([f]) => f);
  return (repeated.length > 0 ? repeated : [...counts.keys()]).sort();
}

/**
 * Paths of the fields that differ between two statuses: `a.b` for objects, `list[key]` for lists
 * of objects keyed by `type` (conditions) or `reason` (pauseConditions), `list[i]` otherwise.
 */
export function statusDiff(before: unknown, after: unknown, path = ''): string[] {
  if (Object.is(before, after)) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    const a = keyed(before);
    const b = keyed(after);
    const keys = [...new Set([...a.keys(), ...b.keys()])];
    return keys.flatMap((k) => statusDiff(a.get(k), b.get(k), `${path}[${k}]`));
  }
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => statusDiff(before[k], after[k], path === '' ? k : `${path}.${k}`));
  }
  return [path];
}

function keyed(list: readonly unknown[]): Map<string, unknown> {
  return new Map(
    list.map((item, i) => {
      const key = isRecord(item) ? (item['type'] ?? item['reason']) : undefined;
      return [typeof key === 'string' ? key : String(i), item];
    }),
  );
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
