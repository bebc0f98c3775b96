#!/usr/bin/env node
/**
 * stepwise-controller: the manager. The only place that builds the API client, informers, work
 * queue, event recorder and Lease; everything else gets them as constructor arguments.
 */
import { writeHeapSnapshot } from 'node:v8';
import { CONTROLLER_NAME, LEASE_NAME } from '../api/index.ts';
import { systemClock } from '../kube/clock.ts';
import { kubeApiOver } from '../kube/apply.ts';
import { httpsTransport } from '../kube/https-transport.ts';
import { KubeconfigError, loadConnection } from '../kube/kubeconfig.ts';
import type { HttpTransport } from '../kube/rest.ts';
import { KubeEventRecorder } from '../kube/events.ts';
import { Informer } from '../kube/informer.ts';
import { LeaderElector } from '../kube/leader.ts';
import { kubeLeaseClient } from '../kube/lease.ts';
import type { Lease } from '../kube/lease.ts';
import { kubeListWatch } from '../kube/listwatch.ts';
import { KubeTransportError } from '../kube/errors.ts';
import { errorText } from '../kube/log.ts';
import { namespacedKey, splitKey, type KubeObject } from '../kube/objects.ts';
import { Resources } from '../kube/resources.ts';
import { TokenBucket } from '../kube/throttle.ts';
import { RateLimitingQueue } from '../kube/workqueue.ts';
import { startInternalServer } from '../server/internal.ts';
import { analysisProviders, conditionEvaluator } from './analysis-wiring.ts';
import { startApprovals } from './approval-wiring.ts';
import { CachedSecretSource } from './analysis-sources.ts';
import { AnalysisRunReconciler } from './analysisrun-reconciler.ts';
import { rolloutCache } from './caches.ts';
import { ConfigError, ExitCode, HelpRequested, parseConfig } from './config.ts';
import { jsonLogger } from './logger.ts';
import { ControllerMetrics } from './metrics.ts';
import type { Key } from './reconciler.ts';
import { RolloutReconciler } from './rollout-reconciler.ts';
import { trafficInformers } from './traffic-wiring.ts';
import { MemoryReclaimer, v8Reclaim } from './memory-reclaim.ts';
import { runWorkers } from './worker.ts';
import { cacheSpecs, controllerInformers } from './informers.ts';
import { wireWakeups } from './wakeups.ts';

const SHUTDOWN_GRACE_MS = 10_000;

/** The API server the kubeconfig names, for the one line printed when it cannot be reached. */
let apiServer: string | undefined;

/**
 * In a container the controller is PID 1, and the kernel ignores signals PID 1 has no handler
 * for: until the graceful shutdown below is wired (after the caches sync, which can take long or
 * never happen when the CRDs or RBAC are missing), a stop must still stop it. Nothing leads and
 * nothing is written yet, so there is nothing to release.
 */
function exitOnSignalUntilWired(): () => void {
  const exit = (): void => process.exit(ExitCode.ok);
  process.once('SIGTERM', exit).once('SIGINT', exit);
  return () => process.off('SIGTERM', exit).off('SIGINT', exit);
}

async function main(): Promise<number> {
  const unwireEarlyExit = exitOnSignalUntilWired();
  let config;
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (err) {
    if (err instanceof HelpRequested) {
      process.stdout.write(`${err.message}\n`);
      return ExitCode.ok;
    }
    if (!(err instanceof ConfigError) && !(err instanceof TypeError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return ExitCode.badFlags;
  }
  const log = jsonLogger(config.logLevel, { component: CONTROLLER_NAME });
  // Whether this replica acts (the Lease's holder, or no election).
  let leading = !config.leaderElect;
  const clock = systemClock;
  let transport: HttpTransport;
  try {
    transport = await apiTransport();
  } catch (err) {
    if (!(err instanceof KubeconfigError)) throw err;
    process.stderr.write(`stepwise-controller: ${err.message}\n`);
    return ExitCode.failed;
  }
  const metrics = new ControllerMetrics();
  const onRequest = metrics.request;
  // --qps/--burst: one bucket for every request the controller makes (client-go semantics).
  const limiter = new TokenBucket(clock, { qps: config.qps, burst: config.burst });
  const api = kubeApiOver(transport, { onRequest, limiter });
  // Lease renewals bypass the bucket: under load (1,000 Rollouts settling) it can hold requests
  // for seconds, and a renewal that waits past the renew deadline loses leadership, which stops
  // all work. They are 1 request per retry period, so the cap stays meaningful.
  const leaseApi = kubeApiOver(transport, { onRequest });
  const ns = config.namespace;

  const leaseName =
    config.instanceId === undefined ? LEASE_NAME : `${LEASE_NAME}-${config.instanceId}`;
  const stores = controllerInformers(cacheSpecs(config.instanceId), {
    api,
    namespace: ns,
    clock,
    log,
    onResumed: requeueAll,
  });
  const traffic = await trafficInformers({ api, namespace: ns, clock, log, onResumed: requeueAll });
  const informers = [...traffic.informers, ...Object.values(stores)];

  const queue = new RateLimitingQueue<Key>({ clock, metrics: metrics.queue('rollout') });
  // AnalysisRuns have their own queue and workers: a slow provider never delays a Rollout.
  const runQueue = new RateLimitingQueue<Key>({ clock, metrics: metrics.queue('analysisrun') });
  const reclaimer =
    config.reclaimMemoryAfterMs > 0
      ? new MemoryReclaimer({
          clock,
          idleMs: config.reclaimMemoryAfterMs,
          collect: v8Reclaim(),
          rss: () => process.memoryUsage.rss(),
          log,
          onReclaimed: (seconds) => metrics.memoryReclaim.observe(seconds),
        })
      : undefined;
  // After an API outage, Rollouts whose passes failed wait out their backoff (up to 10 s); the
  // informers reaching the server again send them all back through at once (adds collapse).
  function requeueAll(): void {
    if (!leading) return;
    for (const key of stores.rollouts.keys()) queue.add(key as Key);
    for (const key of stores.analysisRuns.keys()) runQueue.add(key as Key);
  }
  const enqueue = (keys: readonly (Key | undefined)[]): void => {
    reclaimer?.noteActivity();
    for (const k of keys) if (k !== undefined) queue.add(k);
  };
  wireWakeups(stores, traffic, { rollouts: enqueue, run: (key) => runQueue.add(key) });

  const recorder = new KubeEventRecorder({
    api,
    reportingController: CONTROLLER_NAME,
    reportingInstance: config.identity,
    clock,
    logger: log,
  });
  let approvalSide;
  try {
    approvalSide = await startApprovals({
      config,
      api,
      rollouts: stores.rollouts,
      events: recorder,
      clock,
      log,
      registry: metrics.registry,
      leading: () => leading,
    });
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return ExitCode.badFlags;
  }
  const reconciler = new RolloutReconciler({
    cache: { ...rolloutCache(stores), traffic: traffic.cache },
    api,
    events: recorder,
    clock,
    log,
    onPhase: (r) =>
      metrics.setRolloutPhase(
        r.metadata.namespace ?? '',
        r.metadata.name ?? '',
        stores.rollouts.get(namespacedKey(r))?.status?.phase,
      ),
    onDeleted: (key) => {
      const { namespace = '', name } = splitKey(key);
      metrics.forgetRollout(namespace, name);
    },
    stormMetrics: {
      stormStarted: () => metrics.statusWriteStorms.inc(),
      writeSuppressed: () => metrics.statusWritesSuppressed.inc(),
    },
    onEvent: approvalSide.onEvent,
  });

  const runReconciler = new AnalysisRunReconciler({
    cache: { analysisRun: (key) => stores.analysisRuns.get(key) },
    api,
    events: recorder,
    clock,
    log,
    providers: analysisProviders(api),
    secrets: new CachedSecretSource(api, clock),
    evaluate: conditionEvaluator(),
    onMeasurement: (provider, phase) => metrics.analysisMeasurements.inc({ provider, phase }),
    wake: (key) => runQueue.add(key),
  });

  const stop = new AbortController();
  const server = await startInternalServer(
    metrics.registry,
    {
      live: () => [],
      ready: () =>
        informers.filter((i) => !i.hasSynced()).map((_, n) => `informer ${n} not synced`),
    },
    { host: config.metricsHost, port: config.metricsPort },
  );
  log.info('internal server listening', { host: config.metricsHost, port: server.port });

  for (const informer of informers) informer.start();
  await Promise.all(informers.map((i) => i.synced));
  await approvalSide.serve();
  reclaimer?.start();
  log.info('caches synced', {
    rollouts: stores.rollouts.size,
    replicaSets: stores.replicaSets.size,
    pods: stores.pods.size,
    services: stores.services.size,
    analysisRuns: stores.analysisRuns.size,
    analysisTemplates: stores.analysisTemplates.size,
    clusterAnalysisTemplates: stores.clusterAnalysisTemplates.size,
  });

  let workers: Promise<void> | undefined;
  let runWorkersDone: Promise<void> | undefined;
  const startWorkers = (): void => {
    leading = true;
    metrics.leader.set(1);
    for (const key of stores.rollouts.keys()) queue.add(key as Key);
    workers = runWorkers(queue, reconciler, config.workers, log, stop.signal, {
      observe: (seconds, result) => {
        reclaimer?.noteActivity();
        metrics.reconcile.observe({ result }, seconds);
        metrics.controllerReconcile.observe({ controller: 'rollout', result }, seconds);
        if (result === 'error') metrics.reconcileErrors.inc();
      },
    });
    for (const key of stores.analysisRuns.keys()) runQueue.add(key as Key);
    runWorkersDone = runWorkers(runQueue, runReconciler, config.analysisWorkers, log, stop.signal, {
      observe: (seconds, result) => {
        reclaimer?.noteActivity();
        metrics.controllerReconcile.observe({ controller: 'analysisrun', result }, seconds);
      },
    });
    log.info('workers started', {
      workers: config.workers,
      analysisWorkers: config.analysisWorkers,
    });
  };

  let shutdown: (why: string, code: number) => void = () => undefined;
  // The standby watches the Lease, so a released one is taken at once (not at its next retry).
  const leaseWatch = config.leaderElect
    ? new Informer<KubeObject>({
        name: 'lease',
        source: kubeListWatch(leaseApi, Resources.Lease, config.leaseNamespace),
        fieldSelector: `metadata.name=${leaseName}`,
        clock,
        logger: log,
      })
    : undefined;
  const elector = config.leaderElect
    ? new LeaderElector({
        client: kubeLeaseClient(leaseApi),
        namespace: config.leaseNamespace,
        name: leaseName,
        leaseChanges: (onLease) => {
          const tell = (o: KubeObject | undefined) => onLease(o as Lease | undefined);
          leaseWatch?.addEventHandler({
            onAdd: tell,
            onUpdate: (_old, o) => tell(o),
            onDelete: () => tell(undefined),
          });
          leaseWatch?.start();
          return () => void leaseWatch?.stop();
        },
        identity: config.identity,
        clock,
        logger: log,
        onStartedLeading: () => startWorkers(),
        onStoppedLeading: () => {
          // Another replica may already act: stop at once rather than race it, and exit so the
          // Deployment restarts us as a candidate. (A stop() on shutdown also lands here.)
          if (stop.signal.aborted) return;
          log.error('leader Lease lost: not renewed within the renew deadline; exiting', {
            lease: `${config.leaseNamespace}/${leaseName}`,
            exitCode: ExitCode.leaseLost,
          });
          shutdown('lease lost', ExitCode.leaseLost);
        },
      })
    : undefined;

  const done = new Promise<number>((resolve) => {
    // On a lost Lease the caller has logged why; a signal's shutdown is logged here.
    shutdown = (why, code) => {
      if (stop.signal.aborted) return;
      if (code === ExitCode.ok) log.info('shutting down', { signal: why });
      stop.abort();
      reclaimer?.stop();
      const forced = setTimeout(() => resolve(code || ExitCode.failed), SHUTDOWN_GRACE_MS);
      forced.unref();
      void (async () => {
        await Promise.all([queue.shutDown({ drain: true }), runQueue.shutDown({ drain: true })]);
        await Promise.all([workers, runWorkersDone]);
        await elector?.stop();
        await Promise.all(informers.map((i) => i.stop()));
        await approvalSide.close();
        await recorder.flush();
        await server.close();
        clearTimeout(forced);
        if (code === ExitCode.ok) log.info('stopped');
        resolve(code);
      })();
    };
    // An operator's tool: a heap snapshot of a running controller, written to the working dir.
    // Where that is read-only (the image's /tmp without a volume) it is a log line, not a crash.
    process.on('SIGUSR2', () => {
      try {
        log.info('heap snapshot written', { file: writeHeapSnapshot() });
      } catch (err) {
        log.error('heap snapshot not written', { cwd: process.cwd(), error: errorText(err) });
      }
    });
    unwireEarlyExit();
    process.once('SIGTERM', () => shutdown('SIGTERM', ExitCode.ok));
    process.once('SIGINT', () => shutdown('SIGINT', ExitCode.ok));
  });

  if (elector) {
    log.info('waiting for leadership', { lease: `${config.leaseNamespace}/${leaseName}` });
    void elector.run().catch((err: unknown) => {
      log.error('leader election failed', { error: errorText(err) });
      process.exit(1);
    });
  } else if (leading) {
    startWorkers();
  }
  return done;
}

/**
 * How to reach the API server: our own kubeconfig reader and node:https, or, for a user that
 * authenticates through an exec/auth-provider plugin, client-node (imported only then).
 */
async function apiTransport(): Promise<HttpTransport> {
  const found = loadConnection(process.env);
  if (found.kind === 'connection') {
    apiServer = found.connection.server;
    return httpsTransport(found.connection);
  }
  const [{ KubeConfig }, { kubeConfigTransport }] = await Promise.all([
    import('@kubernetes/client-node'),
    import('../kube/client-node-transport.ts'),
  ]);
  const kc = new KubeConfig();
  kc.loadFromDefault();
  apiServer = kc.getCurrentCluster()?.server;
  return kubeConfigTransport(kc);
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // Start-up lists fail fast: an API server that does not answer is one line, not a stack.
    const unreachable = err instanceof KubeTransportError && !err.aborted;
    process.stderr.write(
      unreachable
        ? `stepwise-controller: cannot reach the API server at ${apiServer ?? '(none)'}: ${err.message}\n`
        : `stepwise-controller: ${errorText(err)}\n`,
    );
    process.exit(ExitCode.failed);
  },
);
