export * from './errors.ts';
export * from './notification.ts';
export { slackMessage, slackResolvedMessage, webhookPayload, escapeMrkdwn } from './messages.ts';
export type { SlackMessage, WebhookPayload } from './messages.ts';
export { MAX_ANSWER_BYTES } from './http.ts';
export type { TransportOptions, SendOptions } from './http.ts';
export { SlackWebApi, DEFAULT_SLACK_API_URL } from './slack.ts';
export type { SlackWebApiOptions, SlackPost, SlackUpdate, PostedMessage } from './slack.ts';
export {
  IncomingWebhook,
  GenericWebhook,
  webhookSignature,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
} from './webhook.ts';
export type { IncomingWebhookOptions, GenericWebhookOptions } from './webhook.ts';
export { BackgroundNotifier } from './notifier.ts';
export type {
  Notifier,
  NotificationTarget,
  NotifyChannel,
  NotifyResult,
  NotifyMetrics,
  BackgroundNotifierOptions,
} from './notifier.ts';
export { notifyMetrics } from './metrics.ts';
export {
  parseNotifyConfig,
  parseSubscriptions,
  unconfiguredTargets,
  NotifySecretKey,
} from './config.ts';
export type {
  NotifyConfig,
  NotifyConfigResult,
  WebhookConfig,
  Subscriptions,
  SubscriptionsResult,
} from './config.ts';
export {
  parseTargetPolicy,
  selectTargets,
  describeTarget,
  MAX_TARGETS_PER_ROLLOUT,
} from './targets.ts';
export type { TargetPolicy, AllowedTargets, TargetSelection } from './targets.ts';
export { notifierFromConfig } from './build.ts';
export type { NotifierDeps } from './build.ts';
