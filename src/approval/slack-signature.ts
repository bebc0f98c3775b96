/**
 * Slack request verification (api.slack.com/authentication/verifying-requests-from-slack):
 * `X-Slack-Signature: v0=<hex HMAC-SHA256(signing secret, "v0:" + timestamp + ":" + raw body)>`
 * with `X-Slack-Request-Timestamp` in Unix seconds. Checked over the raw bytes, before the body
 * is parsed; compared in constant time; a timestamp more than five minutes from now either way
 * is refused (a replayed capture, or a clock so wrong that signatures prove little).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SlackRequestError, SlackRequestErrorCode } from './errors.ts';

export const SLACK_SIGNATURE_HEADER = 'x-slack-signature';
export const SLACK_TIMESTAMP_HEADER = 'x-slack-request-timestamp';
export const DEFAULT_SLACK_MAX_AGE_SECONDS = 300;

export interface SlackSignedRequest {
  /** The X-Slack-Request-Timestamp header. */
  readonly timestamp: string | undefined;
  /** The X-Slack-Signature header. */
  readonly signature: string | undefined;
  /** The body exactly as received. */
  readonly rawBody: Buffer;
}

export type SlackVerifyResult =
  { readonly ok: true } | { readonly ok: false; readonly error: SlackRequestError };

const TIMESTAMP = /^[0-9]{1,12}$/;
const SIGNATURE = /^v0=[0-9a-f]{64}$/;

export function verifySlackSignature(
  req: SlackSignedRequest,
  signingSecret: string,
  nowSeconds: number,
  maxAgeSeconds = DEFAULT_SLACK_MAX_AGE_SECONDS,
): SlackVerifyResult {
  const { timestamp, signature } = req;
  if (timestamp === undefined || timestamp === '') {
    return refuse(SlackRequestErrorCode.SignatureMissing, 'X-Slack-Request-Timestamp is missing');
  }
  if (signature === undefined || signature === '') {
    return refuse(SlackRequestErrorCode.SignatureMissing, 'X-Slack-Signature is missing');
  }
  // An empty secret would make the signature something anyone can compute.
  if (signingSecret === '') {
    return refuse(SlackRequestErrorCode.SignatureInvalid, 'no Slack signing secret is configured');
  }
  if (!TIMESTAMP.test(timestamp)) {
    return refuse(
      SlackRequestErrorCode.SignatureInvalid,
      'X-Slack-Request-Timestamp must be a whole number of seconds',
    );
  }
  const age = nowSeconds - Number(timestamp);
  if (Math.abs(age) > maxAgeSeconds) {
    return refuse(
      SlackRequestErrorCode.TimestampStale,
      `the request was signed ${Math.abs(age)}s ${age > 0 ? 'ago' : 'in the future'}; at most ${maxAgeSeconds}s is accepted`,
    );
  }
  const expected = Buffer.from(slackSignature(req.rawBody, timestamp, signingSecret));
  const sent = Buffer.from(signature);
  // Lengths first: timingSafeEqual throws on unequal lengths, and the length is public anyway.
  if (!SIGNATURE.test(signature) || sent.length !== expected.length) {
    return refuse(
      SlackRequestErrorCode.SignatureInvalid,
      'X-Slack-Signature is not a v0 HMAC-SHA256 signature',
    );
  }
  if (!timingSafeEqual(sent, expected)) {
    return refuse(
      SlackRequestErrorCode.SignatureInvalid,
      'X-Slack-Signature does not match the request body',
    );
  }
  return { ok: true };
}

/** `v0=<hex>`: what Slack sends for this body and timestamp (also used to sign test requests). */
export function slackSignature(rawBody: Buffer, timestamp: string, signingSecret: string): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest('hex')}`;
}

function refuse(code: SlackRequestErrorCode, message: string): SlackVerifyResult {
  return { ok: false, error: new SlackRequestError(code, message) };
}
