/**
 * What the planner's parts return, and the one place that puts their writes in order. Every
 * sub-planner (ReplicaSets, analysis, the step decision, traffic, Services, pods, restart) returns
 * a Fragment: its writes by stage, the events that describe the status write, the times it must
 * be woken at. `orderWrites` turns the fragments of a pass into the shell's ordered writes; the
 * safety order is the table below, written once, not the order the parts happen to be called in.
 */
import type { RolloutStatus } from '../api/index.ts';
import type { Write } from './types.ts';

/**
 * The stages of a pass's writes to its children and the router, in the order they are made. An
 * event describing a child write travels in the same stage, right after its write.
 */
export const WRITE_ORDER = [
  // Less traffic to the canary is always safe: given first, before any of its pods go.
  'trafficDown',
  // Every scale-up before any scale-down, so capacity never dips between two writes.
  'scaleUp',
  // A Service whose ReplicaSet this pass empties moves first to one with available pods
  // (canary/services.ts), so it never selects nothing.
  'servicesAhead',
  'scaleDown',
  // Old ReplicaSets beyond revisionHistoryLimit, once scaled to 0.
  'deleteOld',
  // AnalysisRuns created, terminated, deleted.
  'analysisRuns',
  // On promotion, the old stable keeps its pods until its scale-down deadline (written here).
  'holdOldStable',
  // More traffic to the canary only after the scale-ups it needs.
  'trafficUp',
  // Service selectors pinned to their ReplicaSets' hashes.
  'services',
  // Running pods given their role's ephemeral metadata.
  'podMetadata',
  // restartAt evictions, last of the children.
  'evictions',
] as const;

export type Stage = (typeof WRITE_ORDER)[number];

/** What one part of the planner decided. Every field optional: a part that decides nothing
 *  returns `{}`. */
export interface Fragment {
  /** Writes to children and the router, by stage. */
  readonly writes?: Partial<Readonly<Record<Stage, readonly Write[]>>>;
  /** Events describing the status write: emitted after it, and only when status changed. */
  readonly events?: readonly Write[];
  /** Epoch ms at which the pass must be planned again (pause end, deadlines). */
  readonly requeueAt?: readonly number[];
  /** Written last, whether or not status changed: the answers to RolloutApprovals. */
  readonly answers?: readonly Write[];
}

export interface OrderInput {
  /** In the order their parts ran: events keep this order. */
  readonly fragments: readonly Fragment[];
  /** The status to write; undefined when it is what is stored (then no event either). */
  readonly status: RolloutStatus | undefined;
  /** The API server refused a ReplicaSet write of the last plan: status says why, and the
   *  child writes wait for the shell's backoff. */
  readonly refused: boolean;
}

/**
 * The pass's writes, in the safety order:
 *   children by WRITE_ORDER (unless refused) → status (if changed) → events (with the status)
 *   → approval answers (always).
 */
export function orderWrites(i: OrderInput): Write[] {
  const all = <K extends 'events' | 'answers'>(key: K): Write[] =>
    i.fragments.flatMap((f) => f[key] ?? []);
  const writes: Write[] = i.refused
    ? []
    : WRITE_ORDER.flatMap((stage) => i.fragments.flatMap((f) => f.writes?.[stage] ?? []));
  if (i.status !== undefined)
    writes.push({ kind: 'applyStatus', status: i.status }, ...all('events'));
  writes.push(...all('answers'));
  return writes;
}

/** Milliseconds until the earliest requeue time of the fragments (0 if past), or undefined. */
export function requeueAfter(fragments: readonly Fragment[], now: number): number | undefined {
  const times = fragments.flatMap((f) => f.requeueAt ?? []);
  return times.length === 0 ? undefined : Math.max(0, Math.min(...times) - now);
}
