#!/usr/bin/env node
/**
 * stepwise-controller: parse the flags, build the API client, informers and event recorder (the
 * only place that builds them; everything else gets them as arguments), declare the controllers
 * and hand them to the manager, which starts and stops everything in order (manager.ts).
 */
import { buildInfo, CONTROLLER_NAME } from '../api/index.ts';
import { errorText, KubeconfigError, KubeEventRecorder } from '../kube/index.ts';
import { KubeTransportError, systemClock as clock } from '../kube/index.ts';
import { apiClients } from './api-client.ts';
import { registerBuildInfo } from './build-info.ts';
import { loadApprovalPeople } from './approval-people.ts';
import { startApprovals } from './approval-wiring.ts';
import { ConfigError, configOrExit, ExitCode } from './config.ts';
import { configSummary } from './config-summary.ts';
import {
  analysisRunController,
  followAnalysisRunMetrics,
  rolloutController,
} from './controllers.ts';
import { leaseElection } from './election.ts';
import { IdentityPolicyCheck, identityPolicyGauge } from './identity-policy.ts';
import { cacheSpecs, controllerInformers, startedInformers } from './informers.ts';
import { controllerLogger } from './logger.ts';
import { Manager } from './manager.ts';
import { reclaimerAfter } from './memory-reclaim.ts';
import { ControllerMetrics } from './metrics.ts';
import { cacheSizes, internalServer } from './probes.ts';
import { ArgoControllerPresence } from './argo-presence.ts';
import { exitOnSignalUntilWired, wireSignals } from './signals.ts';
import { trafficInformers } from './traffic-wiring.ts';
import { WorkloadInformers } from './workload-wiring.ts';

const SHUTDOWN_GRACE_MS = 10_000;

/** The API server the kubeconfig names, for the one line printed when it cannot be reached. */
let apiServer: string | undefined;

async function main(): Promise<number> {
  const unwireEarlyExit = exitOnSignalUntilWired();
  const config = configOrExit(process.argv.slice(2), process.env, process);
  if (typeof config === 'number') return config;
  const log = controllerLogger({
    level: config.logLevel,
    format: config.logFormat,
    base: { component: CONTROLLER_NAME },
  });
  const build = buildInfo();
  log.info('starting', { ...build, node: process.version, config: configSummary(config) });
  const metrics = new ControllerMetrics({ replicaGauges: config.rolloutReplicaMetrics });
  registerBuildInfo(metrics.registry, build);
  const limits = { qps: config.qps, burst: config.burst };
  const { api, leaseApi, server } = await apiClients(
    process.env,
    limits,
    clock,
    metrics.request,
    config.apiGroup,
  );
  apiServer = server;
  // After an API outage, Rollouts whose passes failed wait out their backoff (up to 10 s); the
  // informers reaching the server again send them all back through at once (adds collapse).
  const onResumed = (): void => manager.requeueAll();
  const context = { api, namespace: config.namespace, clock, log, onResumed };
  const informers = controllerInformers(cacheSpecs(config.instanceId), context);
  const traffic = await trafficInformers(context);
  const workloads = new WorkloadInformers(context);
  const events = new KubeEventRecorder({
    api,
    reportingController: CONTROLLER_NAME,
    reportingInstance: config.identity,
    clock,
    logger: log,
    onRecorded: (regarding, type, reason) => metrics.countEvent(regarding, type, reason),
  });
  const leading = (): boolean => manager.leading;
  const { registry } = metrics;
  const approvalPeople = await loadApprovalPeople(config.approvalPeopleFile);
  const approvals = await startApprovals({
    config,
    approvalPeople,
    api,
    events,
    clock,
    log,
    registry,
    leading,
    rollouts: informers.rollouts,
  });
  const identityPolicy = new IdentityPolicyCheck({
    api,
    ...config.identityPolicy,
    namespaced: config.namespaced,
    clock,
    log,
    gauge: identityPolicyGauge(registry),
  });
  const argoPresence =
    config.argoControllerLease === undefined
      ? undefined
      : new ArgoControllerPresence({ api, lease: config.argoControllerLease, clock, log });
  const deps = {
    ...(argoPresence === undefined ? {} : { argoPresence }),
    config,
    api,
    clock,
    log,
    metrics,
    informers,
    traffic,
    workloads,
    events,
    identityPolicy,
    approvalPeople,
  };
  const watched = [
    ...traffic.informers,
    ...startedInformers(informers, config),
    workloads,
    ...(argoPresence === undefined ? [] : [argoPresence]),
  ];
  const reclaimer = reclaimerAfter(config.reclaimMemoryAfterMs, {
    clock,
    log,
    onReclaimed: (seconds) => metrics.memoryReclaim.observe(seconds),
  });
  const manager: Manager = new Manager({
    informers: watched,
    controllers: [rolloutController(deps, approvals.onEvent), analysisRunController(deps)],
    probes: [internalServer(config, metrics, watched, log)],
    servers: [
      { start: () => identityPolicy.start(), stop: () => Promise.resolve(identityPolicy.stop()) },
      { start: () => approvals.serve(), stop: () => approvals.close() },
    ],
    election: leaseElection(config, leaseApi, clock, log),
    graceMs: SHUTDOWN_GRACE_MS,
    log,
    synced: () => {
      reclaimer?.start();
      log.info('caches synced', cacheSizes(informers));
      wireSignals(unwireEarlyExit, (signal) => manager.stop(signal, ExitCode.ok), log);
    },
    leading: () => {
      metrics.leader.set(1);
      followAnalysisRunMetrics(informers.analysisRuns, metrics);
      log.info('workers started', {
        workers: config.workers,
        analysisWorkers: config.analysisWorkers,
      });
    },
    activity: () => {
      reclaimer?.noteActivity();
      metrics.eventLoop.noteActivity();
    },
    stopping: () => {
      reclaimer?.stop();
      metrics.eventLoop.stop();
    },
    flush: () => events.flush(),
  });
  return manager.run();
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // A configuration that cannot work (the notification Secret's keys) is one line, exit 2.
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(ExitCode.badFlags);
    }
    // No kubeconfig, and start-up lists failing fast on an API server that does not answer,
    // are one line too, not a stack.
    const unreachable = err instanceof KubeTransportError && !err.aborted;
    process.stderr.write(
      unreachable
        ? `stepwise-controller: cannot reach the API server at ${apiServer ?? '(none)'}: ${err.message}\n`
        : `stepwise-controller: ${err instanceof KubeconfigError ? err.message : errorText(err)}\n`,
    );
    process.exit(ExitCode.failed);
  },
);
