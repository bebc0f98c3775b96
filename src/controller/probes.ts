/**
 * The internal port (/metrics, /healthz, /readyz) as the manager's first runnable: it answers
 * while the caches fill, and /readyz names the informers not synced yet.
 */
import type { Logger } from '../kube/index.ts';
import { startInternalServer } from '../server/internal.ts';
import type { InternalServer } from '../server/internal.ts';
import type { ControllerConfig } from './config.ts';
import type { ControllerInformers } from './informers.ts';
import type { Runnable } from './manager.ts';
import type { ControllerMetrics } from './metrics.ts';

export function internalServer(
  config: ControllerConfig,
  metrics: ControllerMetrics,
  informers: readonly { hasSynced(): boolean }[],
  log: Logger,
): Runnable {
  let server: InternalServer | undefined;
  return {
    async start() {
      server = await startInternalServer(
        metrics.registry,
        {
          live: () => [],
          ready: () =>
            informers.filter((i) => !i.hasSynced()).map((_, n) => `informer ${n} not synced`),
        },
        { host: config.metricsHost, port: config.metricsPort },
      );
      log.info('internal server listening', { host: config.metricsHost, port: server.port });
    },
    stop: async () => server?.close(),
  };
}

/** What the 'caches synced' line reports (the memory benchmark reads it). */
export function cacheSizes(s: ControllerInformers): Record<string, number> {
  return {
    rollouts: s.rollouts.size,
    replicaSets: s.replicaSets.size,
    pods: s.pods.size,
    services: s.services.size,
    analysisRuns: s.analysisRuns.size,
    analysisTemplates: s.analysisTemplates.size,
    clusterAnalysisTemplates: s.clusterAnalysisTemplates.size,
  };
}
