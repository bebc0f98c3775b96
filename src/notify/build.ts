/** Builds the notifier and its clients from a parsed configuration (the controller's one call). */
import type { Logger } from '../kube/log.ts';
import type { NotifyConfig } from './config.ts';
import type { TransportOptions } from './http.ts';
import type { ApprovalMessageKey } from './notification.ts';
import { BackgroundNotifier, type NotifyMetrics } from './notifier.ts';
import { SlackWebApi, type PostedMessage } from './slack.ts';
import { GenericWebhook, IncomingWebhook } from './webhook.ts';

export interface NotifierDeps {
  readonly log: Logger;
  readonly metrics: NotifyMetrics;
  /** Timeouts, retries, agents, for every client. */
  readonly transport?: TransportOptions;
  readonly slackBaseUrl?: string;
  readonly maxQueue?: number;
  readonly concurrency?: number;
  readonly onPosted?: (key: ApprovalMessageKey, message: PostedMessage) => void;
}

export function notifierFromConfig(config: NotifyConfig, deps: NotifierDeps): BackgroundNotifier {
  const transport = deps.transport ?? {};
  const slack =
    config.slackToken === undefined
      ? undefined
      : new SlackWebApi({
          ...transport,
          token: config.slackToken,
          ...(deps.slackBaseUrl !== undefined ? { baseUrl: deps.slackBaseUrl } : {}),
        });
  const slackWebhooks = new Map(
    [...config.slackWebhooks].map(([name, url]) => [
      name,
      new IncomingWebhook({ ...transport, name, url }),
    ]),
  );
  const webhooks = new Map(
    [...config.webhooks].map(([name, w]) => [
      name,
      new GenericWebhook({
        ...transport,
        name,
        url: w.url,
        ...(w.secret ? { secret: w.secret } : {}),
      }),
    ]),
  );
  return new BackgroundNotifier({
    ...(slack !== undefined ? { slack } : {}),
    slackWebhooks,
    webhooks,
    log: deps.log,
    metrics: deps.metrics,
    ...(deps.maxQueue !== undefined ? { maxQueue: deps.maxQueue } : {}),
    ...(deps.concurrency !== undefined ? { concurrency: deps.concurrency } : {}),
    ...(deps.onPosted !== undefined ? { onPosted: deps.onPosted } : {}),
  });
}
