/**
 * An event recorder writing `events.k8s.io/v1` Events about an object (kubectl describe shows
 * them). Repeats are aggregated in the client, as client-go does: the same object, type, reason,
 * action and note within `aggregateWindowMs` (10 min) of the previous one bump `series.count`
 * on the existing Event (one PATCH, coalesced while another write is in flight) instead of
 * creating a new Event. `event()` never throws and never blocks the caller: failures are logged
 * and counted.
 */
import { CONTROLLER_NAME } from '../api/index.ts';
import { microTime, systemClock, type Clock } from './clock.ts';
import { isNotFound } from './errors.ts';
import type { KubeApi } from './kube-api.ts';
import { errorText, silentLogger, type Logger } from './log.ts';
import type { KubeObject } from './objects.ts';
import { Resources } from './resources.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  event(
    regarding: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    opts?: { readonly action?: string; readonly related?: KubeObject },
  ): void;
}

export interface EventRecorderOptions {
  readonly api: KubeApi;
  /** This replica, e.g. the pod name. */
  readonly reportingInstance: string;
  /** Default `stepwise-controller`. */
  readonly reportingController?: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** Default 10 minutes. */
  readonly aggregateWindowMs?: number;
  /** Aggregation entries kept (oldest dropped first). Default 4096. */
  readonly maxEntries?: number;
  /** Called for each failed write (for a metric). */
  readonly onError?: (err: unknown) => void;
  /** Called for each event recorded, repeats included (for a metric). Must not throw. */
  readonly onRecorded?: (regarding: KubeObject, type: EventType, reason: string) => void;
}

interface ObjectReference {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

interface Entry {
  readonly name: string;
  readonly namespace: string;
  count: number;
  lastAt: number;
  created: boolean;
  writing: boolean;
  dirty: boolean;
}

const limit = (s: string, n: number): string => (s.length > n ? s.slice(0, n) : s);

export class KubeEventRecorder implements EventRecorder {
  readonly #o: EventRecorderOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #window: number;
  readonly #max: number;
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Set<Promise<void>>();
  #seq = 0;
  #failures = 0;

  constructor(opts: EventRecorderOptions) {
    this.#o = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.logger ?? silentLogger;
    this.#window = opts.aggregateWindowMs ?? 10 * 60_000;
    this.#max = opts.maxEntries ?? 4096;
  }

  /** Writes that failed so far. */
  get failures(): number {
    return this.#failures;
  }

  event(
    regarding: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    opts: { readonly action?: string; readonly related?: KubeObject } = {},
  ): void {
    try {
      const m = regarding.metadata;
      if (!m?.name) throw new TypeError('event: the regarding object has no name');
      this.#o.onRecorded?.(regarding, type, reason);
      const now = this.#clock.now();
      const note = limit(message, 1024);
      const action = limit(opts.action ?? reason, 128);
      const id = m.uid ?? `${m.namespace ?? ''}/${regarding.kind ?? ''}/${m.name}`;
      const key = [id, type, reason, action, note].join('\u0000');
      const prev = this.#entries.get(key);
      if (prev && now - prev.lastAt <= this.#window) {
        prev.count++;
        prev.lastAt = now;
        this.#entries.delete(key); // keep the map in recency order
        this.#entries.set(key, prev);
        this.#write(key, prev, () => this.#patch(prev));
        return;
      }
      const entry: Entry = {
        name: this.#name(m.name, now),
        namespace: m.namespace || 'default',
        count: 1,
        lastAt: now,
        created: false,
        writing: false,
        dirty: false,
      };
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      while (this.#entries.size > this.#max) {
        this.#entries.delete(this.#entries.keys().next().value as string);
      }
      const body = {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: entry.name, namespace: entry.namespace },
        eventTime: microTime(now),
        type,
        reason: limit(reason, 128),
        action,
        note,
        reportingController: this.#o.reportingController ?? CONTROLLER_NAME,
        reportingInstance: limit(this.#o.reportingInstance, 128),
        regarding: ref(regarding),
        ...(opts.related ? { related: ref(opts.related) } : {}),
      };
      this.#write(key, entry, async () => {
        await this.#o.api.create(body);
        entry.created = true;
      });
    } catch (err) {
      this.#failed(err);
    }
  }

  /** Resolves when every write started so far has finished (for tests and shutdown). */
  async flush(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
  }

  /** One write per entry at a time; repeats during a write become one PATCH after it. */
  #write(key: string, entry: Entry, op: () => Promise<void>): void {
    if (entry.writing) {
      entry.dirty = true;
      return;
    }
    entry.writing = true;
    const p = op()
      .catch((err: unknown) => {
        // Start afresh next time: a new Event (the old one failed or has expired).
        if (this.#entries.get(key) === entry) this.#entries.delete(key);
        this.#failed(err, isNotFound(err) ? 'event expired' : undefined);
        entry.dirty = false;
      })
      .finally(() => {
        entry.writing = false;
        this.#inFlight.delete(p);
        if (entry.dirty && entry.created) {
          entry.dirty = false;
          this.#write(key, entry, () => this.#patch(entry));
        }
      });
    this.#inFlight.add(p);
  }

  async #patch(entry: Entry): Promise<void> {
    const series = { count: entry.count, lastObservedTime: microTime(entry.lastAt) };
    await this.#o.api.patchMerge(Resources.Event, entry.namespace, entry.name, { series });
  }

  #name(objectName: string, now: number): string {
    const suffix = (BigInt(now) * 1_000_000n + BigInt(this.#seq++ % 1_000_000)).toString(16);
    return `${objectName.slice(0, 253 - suffix.length - 1)}.${suffix}`;
  }

  #failed(err: unknown, why?: string): void {
    this.#failures++;
    this.#log.warn(`event recorder: ${why ?? 'write failed'}`, { error: errorText(err) });
    try {
      this.#o.onError?.(err);
    } catch {
      // a metrics hook must not break the caller either
    }
  }
}

function ref(obj: KubeObject): ObjectReference {
  const m = obj.metadata ?? {};
  const out: Record<string, string> = {};
  const fields: [string, string | undefined][] = [
    ['apiVersion', obj.apiVersion],
    ['kind', obj.kind],
    ['name', m.name],
    ['namespace', m.namespace],
    ['uid', m.uid],
    ['resourceVersion', m.resourceVersion],
  ];
  for (const [k, v] of fields) if (v) out[k] = v;
  return out;
}
