/**
 * Notification configuration, parsed once and passed down. From the notification Secret's data
 * (the caller reads the Secret): the Slack bot token and signing secret, Slack incoming webhooks,
 * generic webhooks, and the approval-link signing key. From a Rollout's annotations: who hears
 * about it and about what. Problems name the key, never the value: these values are secrets.
 */
import {
  NOTIFY_ON_ANNOTATION,
  NOTIFY_SLACK_CHANNEL_ANNOTATION,
  NOTIFY_SLACK_WEBHOOK_ANNOTATION,
  NOTIFY_WEBHOOK_ANNOTATION,
} from '../api/index.ts';
import { MIN_KEY_BYTES } from '../approval/index.ts';
import { NOTIFICATION_KINDS, type NotificationKind } from './notification.ts';
import type { NotificationTarget } from './notifier.ts';

/** Keys of the notification Secret. */
export const NotifySecretKey = {
  SlackToken: 'slack-token',
  SlackSigningSecret: 'slack-signing-secret',
  /** Comma list of Slack workspace (team) ids whose members' button presses count. */
  SlackTeamId: 'slack-team-id',
  /** `slack-webhook-<name>`: an incoming webhook URL. */
  SlackWebhookPrefix: 'slack-webhook-',
  /** `webhook-<name>-url` and optional `webhook-<name>-secret`. */
  WebhookPrefix: 'webhook-',
  ApprovalSigningKey: 'approval-signing-key',
  /** The key before the last rotation: still verifies links, never signs. */
  ApprovalSigningKeyPrevious: 'approval-signing-key-previous',
} as const;

export interface WebhookConfig {
  readonly url: string;
  /** Signs each request (X-Stepwise-Signature) when set. */
  readonly secret?: string;
}

export interface NotifyConfig {
  readonly slackToken?: string;
  readonly slackSigningSecret?: string;
  /** Workspaces whose users may press the buttons; empty: any that can see the message. */
  readonly slackTeamIds?: readonly string[];
  /** Name → incoming webhook URL. */
  readonly slackWebhooks: ReadonlyMap<string, string>;
  readonly webhooks: ReadonlyMap<string, WebhookConfig>;
  /** keys[0] signs approval links, every key verifies; empty when none is configured. */
  readonly approvalSigningKeys: readonly Buffer[];
}

export type NotifyConfigResult =
  | { readonly ok: true; readonly config: NotifyConfig; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

const NAME = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const BOT_TOKEN = /^(xoxe\.)?xoxb-[A-Za-z0-9-]+$/;
const PRINTABLE = /^[\x21-\x7e]+$/;
const SLACK_TEAM = /^[TE][A-Z0-9]{2,}$/;
/** `webhook-<name>-url` / `webhook-<name>-secret`. */
const WEBHOOK_KEY = /^webhook-(.+)-(url|secret)$/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function parseNotifyConfig(
  data: Readonly<Record<string, Buffer>> | undefined,
): NotifyConfigResult {
  const problems: string[] = [];
  const warnings: string[] = [];
  const slackWebhooks = new Map<string, string>();
  const webhookUrls = new Map<string, string>();
  const webhookSecrets = new Map<string, string>();
  let slackToken: string | undefined;
  let slackSigningSecret: string | undefined;
  let slackTeamIds: string[] = [];
  let signingKey: Buffer | undefined;
  let previousKey: Buffer | undefined;

  const K = NotifySecretKey;
  for (const [key, raw] of Object.entries(data ?? {})) {
    // Secrets made with `echo` or a file often end in a newline; it is never part of the value.
    const text = raw.toString('utf8').trim();
    if (key === K.SlackToken) {
      if (!BOT_TOKEN.test(text)) problems.push(`${key} must be a Slack bot token (xoxb-…)`);
      else slackToken = text;
    } else if (key === K.SlackSigningSecret) {
      if (!PRINTABLE.test(text)) {
        problems.push(`${key} must be the app's signing secret (no spaces)`);
      } else slackSigningSecret = text;
    } else if (key === K.SlackTeamId) {
      const ids = text.split(',').map((t) => t.trim());
      if (!ids.every((t) => SLACK_TEAM.test(t))) {
        problems.push(`${key} must be a comma list of Slack team ids (T…)`);
      } else slackTeamIds = ids;
    } else if (key === K.ApprovalSigningKey || key === K.ApprovalSigningKeyPrevious) {
      // Binary: used as it is, never trimmed.
      if (raw.length < MIN_KEY_BYTES) {
        problems.push(`${key} must be at least ${MIN_KEY_BYTES} bytes (it has ${raw.length})`);
      } else if (key === K.ApprovalSigningKey) signingKey = raw;
      else previousKey = raw;
    } else if (key.startsWith(K.SlackWebhookPrefix)) {
      const name = key.slice(K.SlackWebhookPrefix.length);
      const problem = nameProblem(name) ?? urlProblem(text, { httpsOnly: true });
      if (problem !== undefined) problems.push(`${key}: ${problem}`);
      else slackWebhooks.set(name, text);
    } else if (WEBHOOK_KEY.test(key)) {
      const [, name = '', part] = WEBHOOK_KEY.exec(key) ?? [];
      const problem =
        nameProblem(name) ??
        (part === 'url'
          ? urlProblem(text, { httpsOnly: false })
          : PRINTABLE.test(text)
            ? undefined
            : 'must be a non-empty secret without spaces');
      if (problem !== undefined) problems.push(`${key}: ${problem}`);
      else (part === 'url' ? webhookUrls : webhookSecrets).set(name, text);
    } else {
      warnings.push(`${key} is not a notification setting and is ignored`);
    }
  }
  const webhooks = new Map<string, WebhookConfig>();
  for (const [name, url] of webhookUrls) {
    const secret = webhookSecrets.get(name);
    webhooks.set(name, secret === undefined ? { url } : { url, secret });
  }
  for (const name of webhookSecrets.keys()) {
    if (!webhookUrls.has(name) && !problems.some((p) => p.startsWith(`webhook-${name}-url`))) {
      problems.push(`webhook-${name}-secret has no webhook-${name}-url`);
    }
  }
  if (previousKey !== undefined && signingKey === undefined) {
    problems.push(
      `${NotifySecretKey.ApprovalSigningKeyPrevious} is set without ${NotifySecretKey.ApprovalSigningKey}`,
    );
  }
  if (problems.length > 0) return { ok: false, problems };
  const approvalSigningKeys = [signingKey, previousKey].filter((k) => k !== undefined);
  return {
    ok: true,
    config: {
      ...(slackToken !== undefined ? { slackToken } : {}),
      ...(slackSigningSecret !== undefined ? { slackSigningSecret } : {}),
      ...(slackTeamIds.length > 0 ? { slackTeamIds } : {}),
      slackWebhooks,
      webhooks,
      approvalSigningKeys,
    },
    warnings,
  };
}

export interface Subscriptions {
  readonly targets: readonly NotificationTarget[];
  /** The kinds to send, in NOTIFICATION_KINDS order; all of them unless the annotation says. */
  readonly kinds: readonly NotificationKind[];
}

export type SubscriptionsResult =
  | ({ readonly ok: true } & Subscriptions)
  | { readonly ok: false; readonly problems: readonly string[] };

const SLACK_CHANNEL = /^([CGD][A-Z0-9]{2,}|#[^\s,#<>@|]{1,80})$/;

/** A Rollout's notification annotations → its targets and kinds, or what is wrong with them. */
export function parseSubscriptions(
  annotations: Readonly<Record<string, string>> | undefined,
): SubscriptionsResult {
  const a = annotations ?? {};
  const problems: string[] = [];
  const targets: NotificationTarget[] = [];
  const list = (key: string, check: (item: string) => string | undefined): string[] => {
    const value = a[key];
    if (value === undefined) return [];
    const items = value.split(',').map((s) => s.trim());
    if (items.some((s) => s === '')) problems.push(`${key}: empty name in the list`);
    const good: string[] = [];
    for (const item of new Set(items.filter((s) => s !== ''))) {
      const problem = check(item);
      if (problem !== undefined) problems.push(`${key}: ${JSON.stringify(item)} ${problem}`);
      else good.push(item);
    }
    return good;
  };
  for (const channel of list(NOTIFY_SLACK_CHANNEL_ANNOTATION, (s) =>
    SLACK_CHANNEL.test(s) ? undefined : 'must be a channel id (C…) or #channel-name',
  )) {
    targets.push({ kind: 'slack', channel });
  }
  for (const name of list(NOTIFY_SLACK_WEBHOOK_ANNOTATION, nameProblem)) {
    targets.push({ kind: 'slack-webhook', name });
  }
  for (const name of list(NOTIFY_WEBHOOK_ANNOTATION, nameProblem)) {
    targets.push({ kind: 'webhook', name });
  }
  const known: readonly string[] = NOTIFICATION_KINDS;
  const chosen = list(NOTIFY_ON_ANNOTATION, (s) =>
    known.includes(s) ? undefined : `is not a notification kind (${known.join(', ')})`,
  );
  const kinds =
    a[NOTIFY_ON_ANNOTATION] === undefined
      ? NOTIFICATION_KINDS
      : NOTIFICATION_KINDS.filter((k) => chosen.includes(k));
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, targets, kinds };
}

/** Targets that name a webhook (or Slack) the configuration does not have, as problems. */
export function unconfiguredTargets(
  targets: readonly NotificationTarget[],
  config: NotifyConfig,
): string[] {
  return targets.flatMap((t) => {
    switch (t.kind) {
      case 'slack':
        return config.slackToken === undefined
          ? [`Slack channel ${t.channel}: no ${NotifySecretKey.SlackToken} is configured`]
          : [];
      case 'slack-webhook':
        return config.slackWebhooks.has(t.name)
          ? []
          : [`Slack webhook ${JSON.stringify(t.name)} is not configured`];
      case 'webhook':
        return config.webhooks.has(t.name)
          ? []
          : [`webhook ${JSON.stringify(t.name)} is not configured`];
    }
  });
}

function nameProblem(name: string): string | undefined {
  return NAME.test(name) ? undefined : 'the name must be a DNS label (a-z, 0-9, -)';
}

/** A webhook URL that is fit to POST to; says why not without echoing it. */
function urlProblem(text: string, opts: { httpsOnly: boolean }): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'must be an absolute URL';
  }
  if (!PRINTABLE.test(text)) return 'must not contain spaces';
  if (url.username !== '' || url.password !== '') return 'must not carry a user or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return 'must be an https URL';
  // The URL of a Slack webhook is its credential: cleartext only on loopback (tests).
  if (opts.httpsOnly && !LOOPBACK.has(url.hostname)) return 'must be an https URL';
  return undefined;
}
