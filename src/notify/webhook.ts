/**
 * Webhooks. A Slack incoming webhook takes `{ text, blocks }` at a URL that is itself the secret
 * (so errors show only `https://hooks.slack.com/…`). A generic webhook takes our JSON document,
 * optionally signed: `X-Stepwise-Timestamp: <unix seconds>` and `X-Stepwise-Signature:
 * sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>`, fresh on every attempt so that a
 * receiver with a replay window accepts retries. Both retry 429, 5xx and transport failures.
 */
import { createHmac } from 'node:crypto';
import { NotifyHttpError, type NotifyError } from './errors.ts';
import {
  endpointOf,
  postWithRetries,
  snippet,
  type HttpAnswer,
  type SendOptions,
  type TransportOptions,
} from './http.ts';
import type { SlackMessage } from './messages.ts';

export const WEBHOOK_TIMESTAMP_HEADER = 'x-stepwise-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'x-stepwise-signature';

export interface IncomingWebhookOptions extends TransportOptions {
  /** The name in the notification Secret (`slack-webhook-<name>`), for logs. */
  readonly name: string;
  readonly url: string;
}

export class IncomingWebhook {
  readonly name: string;
  readonly #url: string;
  readonly #transport: TransportOptions;

  constructor(opts: IncomingWebhookOptions) {
    const { name, url, ...transport } = opts;
    this.name = name;
    this.#url = url;
    this.#transport = transport;
  }

  /** Scheme and host only: safe to log. */
  get endpoint(): string {
    return `Slack incoming webhook ${JSON.stringify(this.name)} (${endpointOf(this.#url)})`;
  }

  async post(msg: SlackMessage, opts?: SendOptions): Promise<void> {
    const secrets = [this.#url];
    await postWithRetries(
      {
        url: this.#url,
        headers: () => ({ 'content-type': 'application/json; charset=utf-8' }),
        body: JSON.stringify({ text: msg.text, blocks: msg.blocks }),
        endpoint: this.endpoint,
        secrets,
      },
      (answer) => judgeWebhookAnswer(answer, this.endpoint, secrets),
      this.#transport,
      opts,
    );
  }
}

export interface GenericWebhookOptions extends TransportOptions {
  /** The name in the notification Secret (`webhook-<name>-url`), for logs. */
  readonly name: string;
  readonly url: string;
  /** Signs each request when set. */
  readonly secret?: string;
  /** Epoch milliseconds, for the signature's timestamp. */
  readonly now?: () => number;
}

export class GenericWebhook {
  readonly name: string;
  readonly #url: string;
  readonly #secret: string | undefined;
  readonly #now: () => number;
  readonly #transport: TransportOptions;

  constructor(opts: GenericWebhookOptions) {
    const { name, url, secret, now = Date.now, ...transport } = opts;
    this.name = name;
    this.#url = url;
    this.#secret = secret === '' ? undefined : secret;
    this.#now = now;
    this.#transport = transport;
  }

  get endpoint(): string {
    return `webhook ${JSON.stringify(this.name)} (${endpointOf(this.#url)})`;
  }

  async post(payload: unknown, opts?: SendOptions): Promise<void> {
    const body = JSON.stringify(payload);
    const secret = this.#secret;
    const secrets = secret === undefined ? [this.#url] : [this.#url, secret];
    await postWithRetries(
      {
        url: this.#url,
        headers: () => {
          const headers: Record<string, string> = {
            'content-type': 'application/json; charset=utf-8',
          };
          if (secret !== undefined) {
            const timestamp = String(Math.floor(this.#now() / 1000));
            headers[WEBHOOK_TIMESTAMP_HEADER] = timestamp;
            headers[WEBHOOK_SIGNATURE_HEADER] = webhookSignature(body, timestamp, secret);
          }
          return headers;
        },
        body,
        endpoint: this.endpoint,
        secrets,
      },
      (answer) => judgeWebhookAnswer(answer, this.endpoint, secrets),
      this.#transport,
      opts,
    );
  }
}

/** `sha256=<hex>` over `timestamp + "." + body`: what a receiver recomputes to trust a call. */
export function webhookSignature(body: string, timestamp: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

function judgeWebhookAnswer(
  answer: HttpAnswer,
  endpoint: string,
  secrets: readonly string[],
): true | NotifyError {
  const { status, retryAfterSeconds } = answer;
  if (status >= 200 && status < 300) return true;
  const retryable = status === 429 || status >= 500;
  return new NotifyHttpError(
    status,
    `${endpoint}: HTTP ${status} ${snippet(answer.body, secrets)}`,
    { retryable, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) },
  );
}
