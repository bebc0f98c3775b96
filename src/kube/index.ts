/**
 * src/kube: cluster access. The public surface: src/controller imports src/kube only from here
 * (test/unit/kube/surface.test.ts holds it to that); the client-node transport stays out, so
 * client-node loads only for a kubeconfig that needs it.
 */
export {
  systemClock,
  sleep,
  microTime,
  withCappedTimers,
  MAX_TIMER_MS,
  type Clock,
} from './clock.ts';
export {
  ExponentialBackoffRateLimiter,
  BucketRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
  type ExponentialBackoffOptions,
  type BucketOptions,
} from './ratelimit.ts';
export {
  RateLimitingQueue,
  type WorkQueue,
  type WorkQueueOptions,
  type QueueMetrics,
} from './workqueue.ts';
export {
  ApiStatusError,
  KubeTransportError,
  apiStatusError,
  toApiError,
  isConflict,
  isAlreadyExists,
  isNotFound,
  isGone,
  isTooManyRequests,
  isRetriable,
  type ApiError,
  type Status,
} from './errors.ts';
export {
  objectKey,
  namespacedKey,
  splitKey,
  stripManagedFields,
  type KubeObject,
  type ObjectMeta,
  type OwnerReference,
  type ObjectKey,
  type NamespacedKey,
} from './objects.ts';
export {
  Resources,
  ResourceRegistry,
  apiVersionOf,
  parseApiVersion,
  collectionPath,
  objectPath,
  resourceLabel,
  watched,
  type ResourceType,
  type KindAccess,
} from './resources.ts';
export {
  RestClient,
  type HttpTransport,
  type HttpRequest,
  type HttpResponse,
  type RequestInfo,
  type RequestMeta,
  type RestClientOptions,
  type WatchStream,
  type Query,
} from './rest.ts';
export { TokenBucket, type RequestLimiter, type TokenBucketOptions } from './throttle.ts';
export type {
  KubeApi,
  ApplyOptions,
  WriteOptions,
  DeleteOptions,
  ListOptions,
  ListResult,
  WatchOptions,
  WatchEvent,
  WatchHandle,
  Selectors,
} from './kube-api.ts';
export { RestKubeApi, kubeApiOver, type RestKubeApiOptions } from './apply.ts';
export { loadConnection, KubeconfigError, type Connection } from './kubeconfig.ts';
export { httpsTransport } from './https-transport.ts';
export {
  kubeListWatch,
  type ListWatchSource,
  type ListPageOptions,
  type WatchFromOptions,
} from './listwatch.ts';
export { Store, deepFreeze, type Cache, type IndexFunc } from './store.ts';
export {
  Informer,
  type InformerOptions,
  type InformerStats,
  type EventHandler,
} from './informer.ts';
export { kubeLeaseClient, type Lease, type LeaseSpec, type LeaseClient } from './lease.ts';
export { LeaderElector, leaderIdentity, type LeaderElectionOptions } from './leader.ts';
export {
  KubeEventRecorder,
  type EventRecorder,
  type EventRecorderOptions,
  type EventType,
} from './events.ts';
export { ownerKey, ownerIndex, ownerKeysForUpdate, type GroupKind } from './owners.ts';
export { workqueueMetrics, requestMetrics } from './metrics.ts';
export { silentLogger, errorText, type Logger, type LogFields } from './log.ts';
export { ArgoWireKubeApi, withArgoTypes } from './argo-wire/index.ts';
