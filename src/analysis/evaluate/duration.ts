/**
 * Go duration strings (`time.ParseDuration`: "30s", "5m", "1h30m", "1.5h", "500ms"), as Argo
 * reads a metric's `interval`, `initialDelay` and `rangeQuery.step`, in whole milliseconds.
 * Pure, never throws; the grammar is src/api/duration.ts, shared with pause durations.
 */
import { parseGoDuration } from '../../api/index.ts';
import type { DurationResult } from '../../api/index.ts';

export type Parsed = DurationResult;

export function parseDuration(s: string): Parsed {
  return parseGoDuration(s);
}
