// Shared pieces of the notify tests: a capturing logger, a metrics recorder, sample notifications
// and a URL nothing listens on.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Logger, LogFields } from '../../../src/kube/log.ts';
import {
  NotificationKind,
  type Notification,
  type NotifyChannel,
  type NotifyMetrics,
  type NotifyResult,
} from '../../../src/notify/index.ts';

export const TOKEN = 'xoxb-1111-2222-SECRETTOKENVALUE';

/** Fast retries so failing paths finish in milliseconds. */
export const fast = { timeoutMs: 2000, retries: 2, minRetryDelayMs: 5 } as const;

export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly fields: LogFields;
}

export function captureLogger(): Logger & { lines: LogLine[]; text(): string } {
  const lines: LogLine[] = [];
  const at =
    (level: string) =>
    (msg: string, fields: LogFields = {}) =>
      lines.push({ level, msg, fields });
  return {
    lines,
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    text: () => JSON.stringify(lines),
  };
}

export function recordMetrics(): NotifyMetrics & {
  results: [NotifyChannel, NotifyResult][];
  retries: NotifyChannel[];
} {
  const results: [NotifyChannel, NotifyResult][] = [];
  const retries: NotifyChannel[] = [];
  return {
    results,
    retries,
    sent: (channel, result) => results.push([channel, result]),
    retried: (channel) => retries.push(channel),
  };
}

export const rollout = { namespace: 'shop', name: 'checkout', uid: 'uid-1' };

export const awaiting: Notification = {
  kind: NotificationKind.AwaitingApproval,
  rollout,
  revision: '7c9d8b6f5',
  step: 2,
  stepCount: 5,
  message: 'Rollout is paused at step 3/5 waiting for approval',
  at: '2026-01-02T03:04:05Z',
  approval: {
    approveUrl: 'https://stepwise.example.com/approve/v1.AAA.BBB',
    rejectUrl: 'https://stepwise.example.com/reject/v1.CCC.DDD',
    approveToken: 'v1.approve.token',
    rejectToken: 'v1.reject.token',
    approvers: { users: ['alice'], groups: ['sre'], slackUsers: ['U0123ABCD'] },
    minApprovals: 1,
    expiresAt: '2026-01-02T03:34:05Z',
    prompt: 'Check the dashboard first',
  },
};

export function notification(
  kind: Notification['kind'],
  message = 'something happened',
): Notification {
  return {
    kind,
    rollout,
    revision: '7c9d8b6f5',
    step: 1,
    stepCount: 5,
    message,
    at: '2026-01-02T03:04:05Z',
  };
}

/** A loopback URL whose port was just released: connections are refused. */
export async function refusedUrl(path = '/'): Promise<string> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return `http://127.0.0.1:${port}${path}`;
}

/** The error a promise rejects with (fails the test if it resolves). */
export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  assert.fail('expected a rejection');
}
