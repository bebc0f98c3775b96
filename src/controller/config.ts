/**
 * Controller configuration, parsed and validated once at start-up from flags and environment.
 * A bad value is an error that names the flag, never a silent fallback.
 */
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { ARGO_CONTROLLER_LEASE, ARGO_GROUP, buildInfo, GROUP, versionText } from '../api/index.ts';
import type { TrustedProxies } from '../server/client-address.ts';
import { approvalFlags } from './approval-flags.ts';
import {
  bool,
  ConfigError,
  hostList,
  hostPort,
  instanceId,
  positiveInt,
  reclaimAfter,
} from './flag-values.ts';
import { LOG_FORMATS } from './logger.ts';
import type { Level, LogFormat } from './logger.ts';

export interface ControllerConfig {
  /** Watch one namespace, or all when undefined. */
  readonly namespace?: string;
  /** --namespaced: no cluster-scoped reads, so Roles in that namespace are all it needs. */
  readonly namespaced: boolean;
  readonly workers: number;
  /** Workers of the AnalysisRun queue: a slow provider never holds a Rollout reconcile. */
  readonly analysisWorkers: number;
  readonly metricsHost: string;
  readonly metricsPort: number;
  readonly leaderElect: boolean;
  readonly leaseNamespace: string;
  readonly identity: string;
  readonly logLevel: Level;
  /** json (one object a line) or text (`time LEVEL msg key=value`). */
  readonly logFormat: LogFormat;
  /** client-side rate limit on API requests */
  readonly qps: number;
  readonly burst: number;
  /** The external port (approval links, Slack), off unless set. */
  readonly external?: {
    readonly host: string;
    readonly port: number;
    /** Proxies (an Ingress) whose X-Forwarded-For names the client, for its rate limit. */
    readonly trustedProxies: TrustedProxies;
    readonly maxConnections: number;
  };
  /** How people reach the external port, for the links in notifications (no trailing /). */
  readonly publicUrl?: string;
  /** The notification Secret (Slack token and signing secret, webhooks, link signing key). */
  readonly notificationsSecret?: { readonly namespace: string; readonly name: string };
  /** Or the same keys as files in a directory (a mounted Secret). */
  readonly notificationsDir?: string;
  /** Slack's Web API base URL (tests point it at a double). */
  readonly slackApiUrl?: string;
  /** How long approval links stay valid at most (a step's shorter timeout is used instead). */
  readonly approvalLinkTtlMs: number;
  /** YAML file: which Slack channels and webhooks each namespace's Rollouts may notify. */
  readonly notificationTargetsFile?: string;
  /** YAML list of people and their identity per channel (approval-people.ts reads it). */
  readonly approvalPeopleFile?: string;
  /** Handle only Rollouts (and AnalysisRuns) labelled with this instance id; without it, only
   *  those without the label. */
  readonly instanceId?: string;
  /** The API group whose Rollouts and analysis objects this controller serves: ours, or Argo
   *  Rollouts' in place (src/kube/argo-wire/: its objects as stored, its keys). */
  readonly apiGroup: ApiGroup;
  /** With argoproj.io: `namespace/name` of Argo's own controller's leader Lease, watched so that
   *  in-place serving stands aside while Argo runs (argo-presence.ts); absent: not watched. */
  readonly argoControllerLease?: string;
  /** Quiet time after which memory is given back to the system (memory-reclaim.ts); 0: never. */
  readonly reclaimMemoryAfterMs: number;
  /** --rollout-replica-metrics: Argo's rollout_info_replicas_* gauges (4 series per Rollout). */
  readonly rolloutReplicaMetrics: boolean;
  /** The identity policy that vouches for RolloutApprovals (identity-policy.ts); `trusted`:
   *  judge them without it. */
  readonly identityPolicy: { readonly name: string; readonly trusted: boolean };
  /** Where web and Prometheus analysis may connect, beyond the built-in denies (CIDRs, names). */
  readonly analysisHosts: {
    readonly allowed: readonly string[];
    readonly denied: readonly string[];
  };
}

/**
 * The process's exit codes (in `--help`). `leaseLost` is not a crash: the replica stopped working
 * because it could not renew the leader Lease in time (another may now lead); its Deployment
 * restarts it and it campaigns again.
 */
export { ConfigError } from './flag-values.ts';

export const ExitCode = { ok: 0, failed: 1, badFlags: 2, leaseLost: 3 } as const;

/** The identity policy's name in deploy/ (the chart passes its own with --identity-policy). */
export const DEFAULT_IDENTITY_POLICY = 'stepwise-rolloutapproval-identity';

/** `--help`: not an error; the usage goes to stdout and the process exits 0. */
export class HelpRequested extends Error {
  override name = 'HelpRequested';
  constructor() {
    super(USAGE);
  }
}

/** `--version`: version, commit and build date on stdout, exit 0. */
export class VersionRequested extends Error {
  override name = 'VersionRequested';
  constructor() {
    super(
      versionText('stepwise-controller', buildInfo(), {
        node: process.version,
        platform: `${process.platform}/${process.arch}`,
      }),
    );
  }
}

const USAGE = `stepwise-controller [flags]
  --version                  print the version, commit and build date, and exit
  --namespace NS             watch only this namespace (default: all; env STEPWISE_NAMESPACE)
  --namespaced               with --namespace: read nothing cluster-scoped, so a Role in that
                             namespace is all it needs (no ClusterAnalysisTemplates; the
                             identity policy cannot be read, so RolloutApprovals are refused
                             unless --trust-approvals-without-identity-policy)
  --workers N                concurrent reconciles (default 10)
  --analysis-workers N       concurrent AnalysisRun reconciles, own queue (default 30, as Argo)
  --metrics-bind-address A   host:port of /metrics /healthz /readyz (default 127.0.0.1:8090)
  --leader-elect BOOL        run leader election on a Lease (default true)
  --lease-namespace NS       namespace of the Lease (default: POD_NAMESPACE, else default)
  --identity ID              holder identity (default: POD_NAME, else hostname_pid)
  --log-level LEVEL          debug|info|warn|error (default info); debug logs each pass's
                             planned writes
  --log-format FORMAT        json|text (default json; env STEPWISE_LOG_FORMAT)
  --instance-id ID           handle only Rollouts labelled stepwise.dev/controller-instance-id=ID
                             (default: only those without that label); its own Lease
  --api-group G              stepwise.dev (default), or argoproj.io: serve Argo Rollouts'
                             Rollouts and analysis objects in place, as they are stored,
                             with Argo's annotation and label keys (Argo's controller at 0)
  --argo-controller-lease NS/NAME
                             with argoproj.io: Argo's controller's leader Lease; while it is
                             held, nothing is served in place (default
                             argo-rollouts/argo-rollouts-controller-lock; none: not watched)
  --qps N / --burst N        API client rate limit: N requests/s sustained, bursts of N
                             (default 50 / 100; Lease renewals are exempt)
  --reclaim-memory-after D   give memory back to the system after D without work
                             (default 10s; 0 never)
  --rollout-replica-metrics BOOL
                             serve Argo's rollout_info_replicas_{available,unavailable,
                             desired,updated}: 4 more series per Rollout (default false)
  --analysis-allowed-hosts L / --analysis-denied-hosts L
                             comma-separated CIDRs, IPs and host names (*.domain) web and
                             Prometheus analysis may / may not reach; loopback, link-local and
                             metadata addresses are denied unless allowed here; the most
                             specific entry decides
approvals and notifications:
  --external-bind-address A  host:port of the approval links and Slack interactions (default: off)
  --trusted-proxy-cidrs L    comma list of proxies (the Ingress) whose X-Forwarded-For names
                             the client for its rate limit (default: none, the socket address)
  --external-max-connections N  open connections on that port at once (default 256)
  --public-url URL           how people reach that port, for links in notifications
                             (https; http only for a loopback host)
  --notifications-secret NS/NAME  Secret with slack-token, slack-signing-secret,
                             slack-webhook-<name>, webhook-<name>-url/-secret,
                             approval-signing-key (read at start; restart to change)
  --notifications-dir DIR    the same keys as files (a mounted Secret)
  --slack-api-url URL        Slack Web API base (default https://slack.com/api)
  --identity-policy NAME     the ValidatingAdmissionPolicy (and binding) that makes RolloutApprovals
                             name their creator (default stepwise-rolloutapproval-identity); while
                             it is missing, RolloutApprovals are refused
  --trust-approvals-without-identity-policy
                             judge RolloutApprovals without it (Kubernetes < 1.30 only)
  --approval-link-ttl D      validity of approval links at most; a shorter step timeout wins
                             (default 24h)
  --notification-targets F   YAML: namespace (or *) -> {slackChannels, webhooks} a Rollout
                             there may notify (default: any; always at most 5 per Rollout)
  --approval-people FILE     YAML list of {name, kubeUser, groups, slackUser}: approvals count
                             people, each once whatever the channel (read at start)
exit codes: 0 stopped by SIGTERM/SIGINT, 1 failed, 2 bad flags,
            3 leader Lease lost (not renewed within the renew deadline)`;

export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ControllerConfig {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      namespace: { type: 'string' },
      namespaced: { type: 'boolean' },
      workers: { type: 'string' },
      'analysis-workers': { type: 'string' },
      'metrics-bind-address': { type: 'string' },
      'leader-elect': { type: 'string' },
      'lease-namespace': { type: 'string' },
      identity: { type: 'string' },
      'log-level': { type: 'string' },
      'log-format': { type: 'string' },
      qps: { type: 'string' },
      burst: { type: 'string' },
      'instance-id': { type: 'string' },
      'api-group': { type: 'string' },
      'argo-controller-lease': { type: 'string' },
      'external-bind-address': { type: 'string' },
      'public-url': { type: 'string' },
      'notifications-secret': { type: 'string' },
      'notifications-dir': { type: 'string' },
      'slack-api-url': { type: 'string' },
      'approval-link-ttl': { type: 'string' },
      'trusted-proxy-cidrs': { type: 'string' },
      'external-max-connections': { type: 'string' },
      'notification-targets': { type: 'string' },
      'approval-people': { type: 'string' },
      'reclaim-memory-after': { type: 'string' },
      'rollout-replica-metrics': { type: 'string' },
      'identity-policy': { type: 'string' },
      'trust-approvals-without-identity-policy': { type: 'boolean' },
      'analysis-allowed-hosts': { type: 'string' },
      'analysis-denied-hosts': { type: 'string' },
      help: { type: 'boolean' },
      version: { type: 'boolean' },
    },
  });
  if (values.help === true) throw new HelpRequested();
  if (values.version === true) throw new VersionRequested();
  const [metricsHost, metricsPort] = hostPort(
    values['metrics-bind-address'] ?? '127.0.0.1:8090',
    '--metrics-bind-address',
  );
  const logLevel = values['log-level'] ?? env.STEPWISE_LOG_LEVEL ?? 'info';
  if (!['debug', 'info', 'warn', 'error'].includes(logLevel)) {
    throw new ConfigError(`--log-level must be debug, info, warn or error, got "${logLevel}"`);
  }
  const logFormat = values['log-format'] ?? env.STEPWISE_LOG_FORMAT ?? 'json';
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) {
    throw new ConfigError(`--log-format must be json or text, got "${logFormat}"`);
  }
  const namespace = values.namespace ?? (env.STEPWISE_NAMESPACE || undefined);
  if (values.namespaced === true && namespace === undefined) {
    throw new ConfigError('--namespaced needs --namespace: the one namespace it may read');
  }
  return {
    namespace,
    namespaced: values.namespaced === true,
    workers: positiveInt('--workers', values.workers ?? '10'),
    analysisWorkers: positiveInt('--analysis-workers', values['analysis-workers'] ?? '30'),
    metricsHost,
    metricsPort,
    leaderElect: bool('--leader-elect', values['leader-elect'] ?? 'true'),
    leaseNamespace: values['lease-namespace'] ?? (env.POD_NAMESPACE || 'default'),
    // The pod's name in a cluster: a restarted container of the same pod is the same holder and
    // takes its Lease back at once instead of waiting for it to expire.
    identity: values.identity ?? (env.POD_NAME || `${hostname()}_${process.pid}`),
    logLevel: logLevel as Level,
    logFormat: logFormat as LogFormat,
    qps: positiveInt('--qps', values.qps ?? '50'),
    burst: positiveInt('--burst', values.burst ?? '100'),
    ...instanceId(values['instance-id']),
    ...servedGroup(values['api-group'] ?? GROUP, values['argo-controller-lease']),
    reclaimMemoryAfterMs: reclaimAfter(values['reclaim-memory-after'] ?? '10s'),
    rolloutReplicaMetrics: bool(
      '--rollout-replica-metrics',
      values['rollout-replica-metrics'] ?? 'false',
    ),
    analysisHosts: {
      allowed: hostList('--analysis-allowed-hosts', values['analysis-allowed-hosts']),
      denied: hostList('--analysis-denied-hosts', values['analysis-denied-hosts']),
    },
    ...approvalFlags(values),
    identityPolicy: {
      name: values['identity-policy'] || DEFAULT_IDENTITY_POLICY,
      trusted: values['trust-approvals-without-identity-policy'] === true,
    },
  };
}

export type ApiGroup = typeof GROUP | typeof ARGO_GROUP;

function servedGroup(
  group: string,
  lease: string | undefined,
): Pick<ControllerConfig, 'apiGroup' | 'argoControllerLease'> {
  if (group !== GROUP && group !== ARGO_GROUP) {
    throw new ConfigError(`--api-group must be ${GROUP} or ${ARGO_GROUP}, got "${group}"`);
  }
  if (group === GROUP) {
    if (lease !== undefined) {
      throw new ConfigError(`--argo-controller-lease needs --api-group=${ARGO_GROUP}`);
    }
    return { apiGroup: group };
  }
  const named = lease ?? ARGO_CONTROLLER_LEASE;
  if (named === 'none') return { apiGroup: group };
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/.test(named)) {
    throw new ConfigError(`--argo-controller-lease must be NAMESPACE/NAME or none, got "${named}"`);
  }
  return { apiGroup: group, argoControllerLease: named };
}

/**
 * The configuration of this process, or the exit code of a run that ends here: `--help` or
 * `--version` (on stdout, 0) or bad flags (one line on stderr, 2).
 */
export function configOrExit(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: { readonly stdout: NodeJS.WritableStream; readonly stderr: NodeJS.WritableStream },
): ControllerConfig | number {
  try {
    return parseConfig(argv, env);
  } catch (err) {
    if (err instanceof HelpRequested || err instanceof VersionRequested) {
      out.stdout.write(`${err.message}\n`);
      return ExitCode.ok;
    }
    if (!(err instanceof ConfigError) && !(err instanceof TypeError)) throw err;
    out.stderr.write(`${err.message}\n`);
    return ExitCode.badFlags;
  }
}
