/**
 * Builds the approval and notification side of the controller from its flags: reads the
 * notification Secret (or its mounted files) once, makes the notifier and the bridge that feeds
 * it the controller's events, and, with --external-bind-address, serves the approval links and
 * Slack interactions. A configuration that cannot work stops the start with one line naming
 * the key or flag (never a value: they are secrets).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Person, Rollout } from '../api/index.ts';
import { Resources } from '../kube/index.ts';
import type { Cache, Clock, KubeApi, Logger } from '../kube/index.ts';
import {
  notifierFromConfig,
  notifyMetrics,
  parseNotifyConfig,
  parseTargetPolicy,
} from '../notify/index.ts';
import type { NotifyConfig, TargetPolicy } from '../notify/index.ts';
import { startExternalServer } from '../server/external.ts';
import type { ExternalServer } from '../server/external.ts';
import { approvalRoutes } from './approval-endpoints.ts';
import type { ControllerConfig } from './config.ts';
import { ConfigError } from './config.ts';
import { NotificationBridge } from './notifications.ts';
import type { EventSink, PlannedEvent } from './rollout-reconciler.ts';

export interface ApprovalWiringDeps {
  readonly config: ControllerConfig;
  readonly api: KubeApi;
  readonly rollouts: Pick<Cache<Rollout>, 'get'>;
  readonly events: EventSink;
  readonly clock: Clock;
  readonly log: Logger;
  readonly registry: Registry;
  readonly leading: () => boolean;
  /** --approval-people, read at start. */
  readonly approvalPeople?: readonly Person[];
}

export interface ApprovalWiring {
  /** For the Rollout reconciler: every event it records. */
  readonly onEvent: (rollout: Rollout, e: PlannedEvent) => void;
  /** Opens the external port (with --external-bind-address; once the caches have synced). */
  serve(): Promise<void>;
  close(): Promise<void>;
}

export async function startApprovals(d: ApprovalWiringDeps): Promise<ApprovalWiring> {
  const config = await notifyConfig(d.config, d.api);
  const targetPolicy = await notificationTargets(d.config.notificationTargetsFile);
  const notifier = notifierFromConfig(config, {
    log: d.log,
    metrics: notifyMetrics(d.registry),
    ...(d.config.slackApiUrl !== undefined ? { slackBaseUrl: d.config.slackApiUrl } : {}),
  });
  const now = () => d.clock.now();
  const bridge = new NotificationBridge({
    notifier,
    config,
    ...(d.config.publicUrl !== undefined ? { publicUrl: d.config.publicUrl } : {}),
    linkTtlMs: d.config.approvalLinkTtlMs,
    ...(targetPolicy !== undefined ? { targetPolicy } : {}),
    ...(d.approvalPeople !== undefined ? { people: d.approvalPeople } : {}),
    now,
    events: d.events,
    log: d.log,
  });
  const onEvent = (r: Rollout, e: PlannedEvent): void => bridge.onEvent(r, e);
  let server: ExternalServer | undefined;
  const serve = async (): Promise<void> => {
    const external = d.config.external;
    if (external === undefined || server !== undefined) return;
    const answers = new Counter({
      name: 'stepwise_external_requests_total',
      help: 'Requests to the external port (approval links, Slack), by route and status code.',
      labelNames: ['route', 'code'],
      registers: [d.registry],
    });
    server = await startExternalServer({
      ...external,
      routes: approvalRoutes({
        api: d.api,
        cached: (namespace, name) => d.rollouts.get(`${namespace}/${name}`),
        keys: () => config.approvalSigningKeys,
        slackSigningSecret: () => config.slackSigningSecret,
        slackTeamIds: () => config.slackTeamIds ?? [],
        people: () => d.approvalPeople ?? [],
        events: d.events,
        now,
        log: d.log,
        onRecorded: onEvent,
      }),
      leading: d.leading,
      log: d.log,
      now,
      onAnswer: (route, code) => answers.inc({ route: routeLabel(route), code: String(code) }),
    });
    d.log.info('external server listening', {
      host: external.host,
      port: server.port,
      links: config.approvalSigningKeys.length > 0,
      slack: config.slackSigningSecret !== undefined,
    });
  };
  return {
    onEvent,
    serve,
    close: async () => {
      await server?.close();
      await notifier.close();
    },
  };
}

function routeLabel(pattern: string): string {
  if (pattern.includes('approvals')) return 'approval-link';
  if (pattern.includes('slack')) return 'slack';
  return 'other';
}

/** The administrator's map of allowed notification targets, or undefined (any is allowed). */
async function notificationTargets(file: string | undefined): Promise<TargetPolicy | undefined> {
  if (file === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `--notification-targets: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  const parsed = parseTargetPolicy(text);
  if (!parsed.ok) {
    throw new ConfigError(`--notification-targets ${file}: ${parsed.problems.join('; ')}`);
  }
  return parsed.policy;
}

/** The notification configuration from the Secret, the directory, or nothing. */
async function notifyConfig(config: ControllerConfig, api: KubeApi): Promise<NotifyConfig> {
  const data = await secretData(config, api);
  const parsed = parseNotifyConfig(data);
  if (!parsed.ok) {
    throw new ConfigError(`notification configuration: ${parsed.problems.join('; ')}`);
  }
  return parsed.config;
}

async function secretData(
  config: ControllerConfig,
  api: KubeApi,
): Promise<Record<string, Buffer> | undefined> {
  const ref = config.notificationsSecret;
  if (ref !== undefined) {
    const secret = await api.get<{ metadata: object; data?: Record<string, string> }>(
      Resources.Secret,
      ref.namespace,
      ref.name,
    );
    if (secret === undefined) {
      throw new ConfigError(
        `--notifications-secret: Secret ${ref.namespace}/${ref.name} not found`,
      );
    }
    return Object.fromEntries(
      Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')]),
    );
  }
  const dir = config.notificationsDir;
  if (dir === undefined) return undefined;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    throw new ConfigError(
      `--notifications-dir: cannot read ${dir}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  // A mounted Secret also holds ..data and timestamped folders: keys are the plain names.
  const keys = names.filter((n) => !n.startsWith('.'));
  return Object.fromEntries(
    await Promise.all(keys.map(async (k) => [k, await readFile(join(dir, k))] as const)),
  );
}
