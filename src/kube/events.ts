/**
 * Kubernetes Events for an object, as `kubectl describe` and notification tools read them
 * (core/v1, reportingController stepwise-controller). Repeats of the same event within ten
 * minutes bump `count` on the first one instead of adding another. Never throws into the caller:
 * a failed event write is logged and counted, the reconcile goes on.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import type { KubeApi } from './kube-api.ts';
import type { Logger } from './log.ts';
import { errorText, silentLogger } from './log.ts';
import type { KubeObject } from './objects.ts';
import { Resources } from './resources.ts';

const AGGREGATE_WINDOW_MS = 10 * 60 * 1000;
const MAX_REMEMBERED = 4096;

export interface EventRecorderOptions {
  readonly api: KubeApi;
  readonly component: string;
  readonly instance?: string;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly onError?: () => void;
}

interface Seen {
  readonly name: string;
  readonly namespace: string;
  count: number;
  at: number;
}

export class EventRecorder {
  readonly #o: EventRecorderOptions;
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #seen = new Map<string, Seen>();
  #pending: Promise<unknown> = Promise.resolve();

  constructor(opts: EventRecorderOptions) {
    this.#o = opts;
    this.#clock = opts.clock ?? systemClock;
    this.#log = opts.log ?? silentLogger;
  }

  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    // Serialised, so a repeat always finds the first one's name.
    this.#pending = this.#pending.then(() => this.#write(obj, type, reason, message));
  }

  /** Resolves when every event recorded so far has been written (or has failed). */
  flush(): Promise<void> {
    return this.#pending.then(() => undefined);
  }

  async #write(obj: KubeObject, type: string, reason: string, message: string): Promise<void> {
    const meta = obj.metadata ?? {};
    const namespace = meta.namespace ?? 'default';
    const key = `${meta.uid}|${type}|${reason}|${message}`;
    const now = this.#clock.now();
    const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const seen = this.#seen.get(key);
    try {
      if (seen && now - seen.at < AGGREGATE_WINDOW_MS) {
        seen.count++;
        seen.at = now;
        await this.#o.api.patchMerge(Resources.CoreEvent, seen.namespace, seen.name, {
          count: seen.count,
          lastTimestamp: stamp,
        });
        return;
      }
      const name = `${meta.name}.${randomBytes(8).toString('hex')}`;
      await this.#o.api.create({
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          name: meta.name,
          namespace,
          uid: meta.uid,
          resourceVersion: meta.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        source: { component: this.#o.component },
        reportingComponent: this.#o.component,
        reportingInstance: this.#o.instance ?? this.#o.component,
      } as KubeObject);
      this.#remember(key, { name, namespace, count: 1, at: now });
    } catch (err) {
      this.#o.onError?.();
      this.#log.warn('could not record event', { reason, error: errorText(err) });
    }
  }

  #remember(key: string, seen: Seen): void {
    if (this.#seen.size >= MAX_REMEMBERED) {
      const oldest = this.#seen.keys().next().value;
      if (oldest !== undefined) this.#seen.delete(oldest);
    }
    this.#seen.set(key, seen);
  }
}
