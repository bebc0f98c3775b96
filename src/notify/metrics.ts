/**
 * prom-client counters for the notifier: every notification's final result per channel, and
 * every retry. Labels are low-cardinality: never a channel name, webhook name or Rollout.
 */
import { Counter, type Registry } from 'prom-client';
import type { NotifyMetrics } from './notifier.ts';

export function notifyMetrics(registry: Registry): NotifyMetrics {
  const registers = [registry];
  const sent = new Counter({
    name: 'stepwise_notifications_total',
    help: 'Notifications by channel (slack, slack-webhook, webhook) and final result (sent, failed, dropped, unconfigured).',
    labelNames: ['channel', 'result'] as const,
    registers,
  });
  const retries = new Counter({
    name: 'stepwise_notification_retries_total',
    help: 'Notification attempts that failed and were retried, by channel.',
    labelNames: ['channel'] as const,
    registers,
  });
  return {
    sent: (channel, result) => sent.inc({ channel, result }),
    retried: (channel) => retries.inc({ channel }),
  };
}
