/**
 * One canary pass's working state, shared by the planner's parts: the writes it collects in
 * order, the events that describe its status write, and the times it must be woken at.
 */
import type { CanaryStrategy, Reason } from '../api/index.ts';
import type { EventWrite, Observed, Write } from './types.ts';

/** Everything a canary pass decides, gathered as it goes. */
export interface Pass {
  readonly o: Observed;
  readonly canary: CanaryStrategy;
  readonly writes: Write[];
  /** Events describing the status write; emitted after it. */
  readonly after: Write[];
  readonly requeue: number[];
  /** Writes after the status write whether or not status changed (RolloutApproval marks). */
  readonly last: Write[];
  /** What the step decision has to tell the status: why it aborts, why it is paused. */
  readonly notes: { abortMessage?: string; pausedMessage?: string };
}

export function normal(reason: Reason, message: string): EventWrite {
  return { kind: 'event', type: 'Normal', reason, message };
}

export function warning(reason: Reason, message: string): EventWrite {
  return { kind: 'event', type: 'Warning', reason, message };
}
