/**
 * One row of a controller's "what wakes what" table (controller-runtime's `Watches(source,
 * handler, predicate)`): a source of events, a named predicate that says which of its events
 * count, and a key mapping from the changed object to the keys that must take another look.
 * Keys are never objects: the reconciler reads the cache (level-triggered).
 */
import type { EventHandler, KubeObject } from '../kube/index.ts';
import type { Key } from './reconciler.ts';

/** Which events of a watch wake anything. Named, so the table says why. */
export interface Predicate<T> {
  readonly name: string;
  added(obj: T): boolean;
  updated(old: T, obj: T): boolean;
  deleted(obj: T): boolean;
}

/** Every add, update and delete. */
export const anyChange: Predicate<unknown> = {
  name: 'anyChange',
  added: () => true,
  updated: () => true,
  deleted: () => true,
};

/** Only a new object (a person's request: our own answer on its status wakes nothing). */
export const added: Predicate<unknown> = {
  name: 'added',
  added: () => true,
  updated: () => false,
  deleted: () => false,
};

/** Added, deleted, or its `status.phase` moved (measurements alone move nothing). */
export const phaseChanged: Predicate<{ readonly status?: { readonly phase?: string } }> = {
  name: 'phaseChanged',
  added: () => true,
  updated: (old, obj) => old.status?.phase !== obj.status?.phase,
  deleted: () => true,
};

/** Added, deleted, or its spec changed (`metadata.generation`): our status writes do not count. */
export const generationChanged: Predicate<KubeObject> = {
  name: 'generationChanged',
  added: () => true,
  updated: (old, obj) => old.metadata?.generation !== obj.metadata?.generation,
  deleted: () => true,
};

/** Which keys a changed object wakes (undefined entries: nothing), named for the table. */
export interface KeyMapping<T> {
  /** What it wakes, in words: 'its owner Rollout'. */
  readonly to: string;
  keys(obj: T): readonly (Key | undefined)[];
}

/** A named mapping: `mapping('its owner Rollout', (o) => [ownerKey(o, ROLLOUT)])`. */
export function mapping<T>(
  to: string,
  keys: (obj: T) => readonly (Key | undefined)[],
): KeyMapping<T> {
  return { to, keys };
}

/** What the manager attaches: events in, keys out. */
export interface Watch {
  /** `<source> -[predicate]-> <keys>`, for logs and tests. */
  readonly description: string;
  /**
   * Starts delivering: `wake` for every key a counted event maps to, `seen` for every event
   * (counted or not: the memory reclaimer's "the cluster is changing").
   */
  attach(wake: (key: Key) => void, seen: () => void): void;
}

export interface EventSource<T> {
  addEventHandler(handler: EventHandler<T>): void;
}

/**
 * A row over an informer. An update wakes the keys of the old object and of the new one (a child
 * can move from one owner to another, and both must look again), each once.
 */
export function watch<T>(
  name: string,
  source: EventSource<T>,
  when: Predicate<NoInfer<T>>,
  wakes: KeyMapping<NoInfer<T>>,
): Watch {
  const keys = (o: T): readonly (Key | undefined)[] => wakes.keys(o);
  return {
    description: `${name} -[${when.name}]-> ${wakes.to}`,
    attach(wake, seen) {
      const send = (list: readonly (Key | undefined)[]): void => {
        for (const k of list) if (k !== undefined) wake(k);
      };
      source.addEventHandler({
        onAdd: (o) => {
          seen();
          if (when.added(o)) send(keys(o));
        },
        onUpdate: (old, o) => {
          seen();
          if (when.updated(old, o)) send([...new Set([...keys(old), ...keys(o)])]);
        },
        onDelete: (o) => {
          seen();
          if (when.deleted(o)) send(keys(o));
        },
      });
    },
  };
}

/**
 * A row over a source that reports changes as index keys only (the traffic routers' objects,
 * src/controller/traffic-wiring.ts): every change counts.
 */
export function watchChanges(
  name: string,
  subscribe: (onChange: (changed: string) => void) => void,
  wakes: KeyMapping<string>,
): Watch {
  return {
    description: `${name} -[${anyChange.name}]-> ${wakes.to}`,
    attach(wake, seen) {
      subscribe((changed) => {
        seen();
        for (const k of wakes.keys(changed)) if (k !== undefined) wake(k);
      });
    },
  };
}
