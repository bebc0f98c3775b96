/**
 * The effective configuration as the start-up log line shows it: every setting after defaults,
 * environment and flags, so "what is this replica running with" has one answer in the logs.
 * Nothing secret is in ControllerConfig (credentials live in Secrets and files, read later);
 * URLs still lose any user:password and query a person may have pasted into a flag.
 */
import { GROUP } from '../api/index.ts';
import type { LogFields } from '../kube/index.ts';
import type { ControllerConfig } from './config.ts';

export function configSummary(c: ControllerConfig): LogFields {
  return {
    apiGroup: c.apiGroup,
    ...(c.apiGroup === GROUP
      ? {}
      : { argoControllerLease: c.argoControllerLease ?? '(not watched)' }),
    namespace: c.namespace ?? '(all)',
    namespaced: c.namespaced,
    instanceId: c.instanceId ?? '(none)',
    workers: c.workers,
    analysisWorkers: c.analysisWorkers,
    metricsBindAddress: `${c.metricsHost}:${c.metricsPort}`,
    leaderElect: c.leaderElect,
    leaseNamespace: c.leaseNamespace,
    identity: c.identity,
    logLevel: c.logLevel,
    logFormat: c.logFormat,
    qps: c.qps,
    burst: c.burst,
    reclaimMemoryAfterMs: c.reclaimMemoryAfterMs,
    rolloutReplicaMetrics: c.rolloutReplicaMetrics,
    identityPolicy: c.identityPolicy.name,
    trustApprovalsWithoutIdentityPolicy: c.identityPolicy.trusted,
    analysisAllowedHosts: c.analysisHosts.allowed,
    analysisDeniedHosts: c.analysisHosts.denied,
    externalBindAddress: c.external ? `${c.external.host}:${c.external.port}` : '(off)',
    ...(c.external
      ? {
          trustedProxyNetworks: c.external.trustedProxies.cidrs.length,
          externalMaxConnections: c.external.maxConnections,
        }
      : {}),
    publicUrl: c.publicUrl === undefined ? '(none)' : withoutCredentials(c.publicUrl),
    approvalLinkTtlMs: c.approvalLinkTtlMs,
    notifications: c.notificationsSecret
      ? `secret ${c.notificationsSecret.namespace}/${c.notificationsSecret.name}`
      : c.notificationsDir !== undefined
        ? `dir ${c.notificationsDir}`
        : '(none)',
    ...(c.slackApiUrl !== undefined ? { slackApiUrl: withoutCredentials(c.slackApiUrl) } : {}),
    ...(c.notificationTargetsFile !== undefined
      ? { notificationTargets: c.notificationTargetsFile }
      : {}),
    ...(c.approvalPeopleFile !== undefined ? { approvalPeople: c.approvalPeopleFile } : {}),
  };
}

/** The URL without user:password@ and without its query (a token may sit in either). */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (u.username !== '' || u.password !== '') {
      u.username = '';
      u.password = '';
    }
    u.search = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return '(unparsable)';
  }
}
