/**
 * The events a pass emits, built one way: a Normal or a Warning with one of our reasons
 * (src/api/reasons.ts) and a human message. Where each goes in the pass's writes is order.ts's
 * business, not the builder's.
 */
import type { Reason } from '../api/index.ts';
import type { EventWrite } from './types.ts';

export function normal(reason: Reason, message: string): EventWrite {
  return { kind: 'event', type: 'Normal', reason, message };
}

export function warning(reason: Reason, message: string): EventWrite {
  return { kind: 'event', type: 'Warning', reason, message };
}
