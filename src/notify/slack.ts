/**
 * The two Slack Web API methods we use, chat.postMessage and chat.update, with a bot token.
 * Slack reports API errors as HTTP 200 `{ ok: false, error }`: `ratelimited` (or HTTP 429) is
 * retried after Retry-After, HTTP 5xx and transport failures with backoff, and every other
 * error (`invalid_auth`, `channel_not_found`, `not_in_channel`, …) fails at once, since
 * repeating the request cannot fix it. The token is sent only in the Authorization header.
 */
import { SlackApiError, NotifyHttpError, type NotifyError } from './errors.ts';
import {
  postWithRetries,
  snippet,
  type HttpAnswer,
  type SendOptions,
  type TransportOptions,
} from './http.ts';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api';

export interface SlackWebApiOptions extends TransportOptions {
  /** Bot token (`xoxb-…`). */
  readonly token: string;
  /** Default https://slack.com/api; tests point it at a local double. */
  readonly baseUrl?: string;
}

export interface SlackPost {
  readonly channel: string;
  readonly text: string;
  readonly blocks?: readonly unknown[];
}

export interface SlackUpdate extends SlackPost {
  readonly ts: string;
}

/** Where a message landed: the channel id Slack resolved and the message timestamp. */
export interface PostedMessage {
  readonly channel: string;
  readonly ts: string;
}

export class SlackWebApi {
  readonly #token: string;
  readonly #baseUrl: string;
  readonly #transport: TransportOptions;

  constructor(opts: SlackWebApiOptions) {
    const { token, baseUrl = DEFAULT_SLACK_API_URL, ...transport } = opts;
    this.#token = token;
    this.#baseUrl = baseUrl.replace(/\/+$/, '');
    this.#transport = transport;
  }

  /** chat.postMessage; resolves with where the message landed. */
  async postMessage(msg: SlackPost, opts?: SendOptions): Promise<PostedMessage> {
    const answer = await this.#call('chat.postMessage', msg, opts);
    const { channel, ts } = answer;
    if (typeof channel !== 'string' || typeof ts !== 'string') {
      throw new SlackApiError(
        'invalid_response',
        200,
        'Slack API chat.postMessage: no channel and ts in the answer',
        {
          retryable: false,
        },
      );
    }
    return { channel, ts };
  }

  /** chat.update of a message we posted. */
  async update(msg: SlackUpdate, opts?: SendOptions): Promise<void> {
    await this.#call('chat.update', msg, opts);
  }

  #call(method: string, body: object, opts?: SendOptions): Promise<Record<string, unknown>> {
    const endpoint = `Slack API ${method}`;
    const secrets = [this.#token];
    return postWithRetries(
      {
        url: `${this.#baseUrl}/${method}`,
        headers: () => ({
          authorization: `Bearer ${this.#token}`,
          'content-type': 'application/json; charset=utf-8',
        }),
        body: JSON.stringify(body),
        endpoint,
        secrets,
      },
      (answer) => judgeSlackAnswer(answer, endpoint, secrets),
      this.#transport,
      opts,
    );
  }
}

/** Slack's answer → its JSON, or the error to retry or give up on. */
export function judgeSlackAnswer(
  answer: HttpAnswer,
  endpoint: string,
  secrets: readonly string[],
): Record<string, unknown> | NotifyError {
  const { status, retryAfterSeconds } = answer;
  const after = retryAfterSeconds !== undefined ? { retryAfterSeconds } : {};
  if (status >= 500) {
    return new NotifyHttpError(status, `${endpoint}: HTTP ${status}`, {
      retryable: true,
      ...after,
    });
  }
  const json = parseObject(answer.body);
  if (json !== undefined && typeof json['ok'] === 'boolean') {
    if (json['ok'] && status >= 200 && status < 300) return json;
    const error = typeof json['error'] === 'string' ? json['error'] : 'unknown_error';
    const retryable = error === 'ratelimited' || status === 429;
    return new SlackApiError(error, status, `${endpoint}: ${error} (HTTP ${status})`, {
      retryable,
      ...after,
    });
  }
  if (status === 429) {
    return new NotifyHttpError(status, `${endpoint}: HTTP 429`, { retryable: true, ...after });
  }
  return new NotifyHttpError(
    status,
    `${endpoint}: HTTP ${status}, not a Slack API answer: ${snippet(answer.body, secrets)}`,
    { retryable: false },
  );
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
