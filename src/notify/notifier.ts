/**
 * The non-blocking sender. `send` queues one job per target and returns; up to `concurrency`
 * jobs run at once, each with its transport's retries. The queue is bounded: when full, the
 * oldest job is dropped (logged, counted), because a newer notification about a Rollout matters
 * more than an old one. A send that needed retries is logged once at warn, with the channel,
 * target name and error code, never a token or webhook URL.
 *
 * Awaiting-approval messages posted to Slack are remembered by (Rollout UID, revision, step),
 * so `resolve` can replace their buttons with the decision (chat.update). A decision that
 * arrives while the post is still queued is applied as soon as the post lands.
 */
import { errorText, type Logger } from '../kube/log.ts';
import { NotifyError } from './errors.ts';
import type { SendOptions } from './http.ts';
import { slackMessage, slackResolvedMessage, webhookPayload } from './messages.ts';
import {
  approvalMessageKey,
  type ApprovalMessageKey,
  type ApprovalOutcome,
  type Notification,
} from './notification.ts';
import { PostedApprovals, keyText } from './posted-approvals.ts';
import type { PostedMessage, SlackWebApi } from './slack.ts';
import type { GenericWebhook, IncomingWebhook } from './webhook.ts';

export type NotificationTarget =
  | { readonly kind: 'slack'; readonly channel: string }
  | { readonly kind: 'slack-webhook'; readonly name: string }
  | { readonly kind: 'webhook'; readonly name: string };
export type NotifyChannel = NotificationTarget['kind'];
export type NotifyResult = 'sent' | 'failed' | 'dropped' | 'unconfigured';

export interface NotifyMetrics {
  sent(channel: NotifyChannel, result: NotifyResult): void;
  retried(channel: NotifyChannel): void;
}

export interface Notifier {
  /** Returns at once; sends in the background with retries. Never throws. */
  send(n: Notification, targets: readonly NotificationTarget[]): void;
  /** Where the awaiting-approval message of (uid, revision, step) landed in Slack so far. */
  posted(key: ApprovalMessageKey): readonly PostedMessage[];
  /**
   * Updates the posted awaiting-approval message(s) of (uid, revision, step) after a decision.
   * `known` supplies the message after a restart (from what `onPosted` persisted).
   */
  resolve(
    key: ApprovalMessageKey,
    outcome: ApprovalOutcome,
    known?: { readonly notification: Notification; readonly messages: readonly PostedMessage[] },
  ): void;
  /** Resolves when everything queued so far has finished (sent or given up). */
  idle(): Promise<void>;
}

export interface BackgroundNotifierOptions {
  readonly slack?: SlackWebApi;
  readonly slackWebhooks: ReadonlyMap<string, IncomingWebhook>;
  readonly webhooks: ReadonlyMap<string, GenericWebhook>;
  readonly log: Logger;
  readonly metrics: NotifyMetrics;
  readonly maxQueue?: number;
  readonly concurrency?: number;
  /** How many awaiting-approval messages to remember for `resolve` (oldest forgotten). */
  readonly maxTrackedApprovals?: number;
  /** Told where each awaiting-approval message landed, e.g. to persist it across restarts. */
  readonly onPosted?: (key: ApprovalMessageKey, message: PostedMessage) => void;
}

interface Job {
  readonly channel: NotifyChannel;
  /** Slack channel or webhook name: safe to log. */
  readonly target: string;
  readonly what: string;
  readonly rollout: string;
  readonly run: (opts: SendOptions) => Promise<void>;
}

export class BackgroundNotifier implements Notifier {
  readonly #o: BackgroundNotifierOptions;
  readonly #maxQueue: number;
  readonly #concurrency: number;
  readonly #queue: Job[] = [];
  readonly #approvals: PostedApprovals;
  readonly #stop = new AbortController();
  #waiters: (() => void)[] = [];
  #active = 0;

  constructor(opts: BackgroundNotifierOptions) {
    this.#o = opts;
    this.#maxQueue = Math.max(1, opts.maxQueue ?? 1000);
    this.#concurrency = Math.max(1, opts.concurrency ?? 4);
    this.#approvals = new PostedApprovals(opts.maxTrackedApprovals ?? 1000);
  }

  send(n: Notification, targets: readonly NotificationTarget[]): void {
    try {
      for (const target of targets) this.#sendTo(n, target);
    } catch (err) {
      this.#o.log.error('notification not queued', {
        rollout: `${n.rollout.namespace}/${n.rollout.name}`,
        kind: n.kind,
        error: errorText(err),
      });
    }
  }

  posted(key: ApprovalMessageKey): readonly PostedMessage[] {
    return [...(this.#approvals.get(key)?.messages ?? [])];
  }

  resolve(
    key: ApprovalMessageKey,
    outcome: ApprovalOutcome,
    known?: { readonly notification: Notification; readonly messages: readonly PostedMessage[] },
  ): void {
    try {
      const notification = this.#approvals.get(key)?.notification ?? known?.notification;
      if (notification === undefined) {
        this.#o.log.debug('no posted approval message to update', { approval: keyText(key) });
        return;
      }
      for (const m of known?.messages ?? []) this.#approvals.addMessage(key, notification, m);
      this.#approvals.setOutcome(key, notification, outcome);
      for (const m of this.#approvals.get(key)?.messages ?? []) {
        this.#queueUpdate(notification, outcome, m);
      }
    } catch (err) {
      this.#o.log.error('approval message update not queued', { error: errorText(err) });
    }
  }

  idle(): Promise<void> {
    if (this.#queue.length === 0 && this.#active === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Shutdown: drops what is queued (counted), cancels what is in flight, waits for it. */
  async close(): Promise<void> {
    this.#stop.abort();
    for (const job of this.#queue.splice(0)) this.#o.metrics.sent(job.channel, 'dropped');
    await this.idle();
  }

  #sendTo(n: Notification, target: NotificationTarget): void {
    const rollout = `${n.rollout.namespace}/${n.rollout.name}`;
    const base = { what: n.kind, rollout };
    switch (target.kind) {
      case 'slack': {
        const slack = this.#o.slack;
        if (slack === undefined) return this.#unconfigured(target.kind, target.channel, base);
        const key = approvalMessageKey(n);
        // Tracked from now, so a decision made before the post lands still reaches it.
        if (key !== undefined) this.#approvals.track(key, n);
        return this.#enqueue({
          ...base,
          channel: target.kind,
          target: target.channel,
          run: async (opts) => {
            const { text, blocks } = slackMessage(n);
            const posted = await slack.postMessage({ channel: target.channel, text, blocks }, opts);
            if (key !== undefined) this.#remember(key, n, posted);
          },
        });
      }
      case 'slack-webhook': {
        const hook = this.#o.slackWebhooks.get(target.name);
        if (hook === undefined) return this.#unconfigured(target.kind, target.name, base);
        return this.#enqueue({
          ...base,
          channel: target.kind,
          target: target.name,
          run: (opts) => hook.post(slackMessage(n), opts),
        });
      }
      case 'webhook': {
        const hook = this.#o.webhooks.get(target.name);
        if (hook === undefined) return this.#unconfigured(target.kind, target.name, base);
        return this.#enqueue({
          ...base,
          channel: target.kind,
          target: target.name,
          run: (opts) => hook.post(webhookPayload(n), opts),
        });
      }
    }
  }

  #unconfigured(channel: NotifyChannel, target: string, fields: object): void {
    this.#o.log.warn(
      channel === 'slack'
        ? 'notification for Slack, but no slack-token is configured'
        : `notification for ${channel} ${JSON.stringify(target)}, which is not configured`,
      { channel, target, ...fields },
    );
    this.#o.metrics.sent(channel, 'unconfigured');
  }

  #remember(key: ApprovalMessageKey, n: Notification, posted: PostedMessage): void {
    this.#approvals.addMessage(key, n, posted);
    try {
      this.#o.onPosted?.(key, posted);
    } catch (err) {
      this.#o.log.error('onPosted failed', { approval: keyText(key), error: errorText(err) });
    }
    // Decided while the post was on its way: update it now.
    const outcome = this.#approvals.get(key)?.outcome;
    if (outcome !== undefined) this.#queueUpdate(n, outcome, posted);
  }

  #queueUpdate(n: Notification, outcome: ApprovalOutcome, m: PostedMessage): void {
    const slack = this.#o.slack;
    if (slack === undefined) return;
    this.#enqueue({
      channel: 'slack',
      target: m.channel,
      what: 'approval-resolved',
      rollout: `${n.rollout.namespace}/${n.rollout.name}`,
      run: async (opts) => {
        const { text, blocks } = slackResolvedMessage(n, outcome);
        await slack.update({ channel: m.channel, ts: m.ts, text, blocks }, opts);
      },
    });
  }

  #enqueue(job: Job): void {
    if (this.#stop.signal.aborted) {
      this.#o.metrics.sent(job.channel, 'dropped');
      return;
    }
    if (this.#queue.length >= this.#maxQueue) {
      const dropped = this.#queue.shift();
      if (dropped !== undefined) {
        this.#o.log.warn('notification queue full: dropping the oldest notification', {
          ...fields(dropped),
          maxQueue: this.#maxQueue,
        });
        this.#o.metrics.sent(dropped.channel, 'dropped');
      }
    }
    this.#queue.push(job);
    this.#pump();
  }

  #pump(): void {
    while (this.#active < this.#concurrency) {
      const job = this.#queue.shift();
      if (job === undefined) break;
      this.#active++;
      void this.#run(job).finally(() => {
        this.#active--;
        this.#pump();
        if (this.#queue.length === 0 && this.#active === 0) {
          const waiters = this.#waiters;
          this.#waiters = [];
          for (const w of waiters) w();
        }
      });
    }
  }

  async #run(job: Job): Promise<void> {
    const { log, metrics } = this.#o;
    let attempts = 1;
    let firstError: unknown;
    const onRetry = (err: NotifyError): void => {
      attempts++;
      firstError ??= err;
      metrics.retried(job.channel);
      log.debug('notification attempt failed; retrying', { ...fields(job), ...describe(err) });
    };
    try {
      await job.run({ signal: this.#stop.signal, onRetry });
      metrics.sent(job.channel, 'sent');
      if (firstError !== undefined) {
        log.warn('notification sent after retries', {
          ...fields(job),
          attempts,
          ...describe(firstError),
        });
      }
    } catch (err) {
      metrics.sent(job.channel, 'failed');
      log.warn('notification not sent', { ...fields(job), attempts, ...describe(err) });
    }
  }
}

function fields(job: Job): Record<string, string> {
  return { channel: job.channel, target: job.target, kind: job.what, rollout: job.rollout };
}

function describe(err: unknown): Record<string, string> {
  if (err instanceof NotifyError) return { code: err.code, error: err.message };
  return { error: errorText(err) };
}
