/**
 * The dashboard's shared watches, with the user's credentials: one list + watch cache (the
 * plugin's Mirror) per resource kind, over the namespace asked for or all of them, feeding the
 * hub every page reads from. A watch the user may not make (RBAC) is said on the page and tried
 * again now and then; the others carry on.
 */
import type { AnalysisRun } from '../../api/analysis.ts';
import type { Rollout } from '../../api/rollout.ts';
import { Hub, type EventLike, type WatchedKind, type WatchedSets } from '../../dashboard/index.ts';
import type { KubeClient, ObjectList, WatchQuery, WatchResource } from '../client.ts';
import { Mirror } from '../watch.ts';
import type { PodLike, ReplicaSetLike } from '../render/objects.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../api/keys.ts';

const RETRY_MS = 10_000;

/** What the caches key objects by. */
interface Cached {
  metadata?: { uid?: string; name?: string; namespace?: string; resourceVersion?: string };
}

interface Watched {
  readonly kind: WatchedKind;
  readonly resource: WatchResource;
  readonly query: WatchQuery;
}

/** What is watched: only the ReplicaSets and pods of Rollouts, only the Rollouts' Events. */
const WATCHED: readonly Watched[] = [
  { kind: 'rollouts', resource: 'rollouts', query: {} },
  {
    kind: 'replicaSets',
    resource: 'replicasets',
    query: { labelSelector: POD_TEMPLATE_HASH_LABEL },
  },
  { kind: 'pods', resource: 'pods', query: { labelSelector: POD_TEMPLATE_HASH_LABEL } },
  { kind: 'analysisRuns', resource: 'analysisruns', query: {} },
  { kind: 'events', resource: 'events', query: { fieldSelector: 'involvedObject.kind=Rollout' } },
];

export interface SharedWatches {
  readonly hub: Hub;
  /** Resolves once every first list has been tried (succeeded or said why not). */
  readonly started: Promise<void>;
  stop(): void;
}

/** namespace undefined: all namespaces. */
export function startWatches(client: KubeClient, namespace: string | undefined): SharedWatches {
  const mirrors = new Map<WatchedKind, Mirror<Cached>>();
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  const values = <T>(kind: WatchedKind) => ({
    get values(): readonly T[] {
      return (mirrors.get(kind)?.values ?? []) as unknown as readonly T[];
    },
  });
  const sets: WatchedSets = {
    rollouts: values<Rollout>('rollouts'),
    replicaSets: values<ReplicaSetLike>('replicaSets'),
    pods: values<PodLike>('pods'),
    analysisRuns: values<AnalysisRun>('analysisRuns'),
    events: values<EventLike>('events'),
  };
  const hub = new Hub(sets, namespace === undefined ? 'all namespaces' : `namespace ${namespace}`);

  const start = async (w: Watched): Promise<void> => {
    const mirror = new Mirror<Cached>(
      {
        list: () =>
          client.listObjects(w.resource, namespace, w.query) as Promise<ObjectList<Cached>>,
        watch: (resourceVersion, onEvent) =>
          client.watch(w.resource, namespace, { ...w.query, resourceVersion }, onEvent),
      },
      {
        onChange: () => {
          hub.setProblem(w.kind, undefined);
          hub.changed();
        },
        onRetry: (err) =>
          hub.setProblem(w.kind, `${w.resource}: watch interrupted, retrying (${message(err)})`),
      },
    );
    try {
      await mirror.start();
      if (stopped) mirror.stop();
      else mirrors.set(w.kind, mirror);
    } catch (err) {
      hub.setProblem(w.kind, `${w.resource}: ${message(err)}`);
      if (stopped) return;
      const timer = setTimeout(() => {
        timers.delete(timer);
        void start(w);
      }, RETRY_MS);
      timer.unref();
      timers.add(timer);
    }
  };

  return {
    hub,
    started: Promise.all(WATCHED.map(start)).then(() => undefined),
    stop() {
      stopped = true;
      for (const t of timers) clearTimeout(t);
      for (const m of mirrors.values()) m.stop();
      hub.close();
    },
  };
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
