/**
 * Why an approval token or a Slack request was refused. Callers branch on `code` (an HTTP
 * endpoint maps them to 400/401/403), never on the message, and no message ever carries a key,
 * a signing secret or the token itself.
 */
import { StepwiseError } from '../api/index.ts';

export const ApprovalTokenErrorCode = {
  /** Not a token we could have issued: size, shape, version, encoding or claims. */
  Malformed: 'SW_APPROVAL_TOKEN_MALFORMED',
  /** Well formed, but no configured key signed it (tampered, or signed with a retired key). */
  Signature: 'SW_APPROVAL_TOKEN_SIGNATURE',
  /** Genuine, but its time is up. */
  Expired: 'SW_APPROVAL_TOKEN_EXPIRED',
} as const;
export type ApprovalTokenErrorCode =
  (typeof ApprovalTokenErrorCode)[keyof typeof ApprovalTokenErrorCode];

export class ApprovalTokenError extends StepwiseError {
  override readonly code: ApprovalTokenErrorCode;
  override name = 'ApprovalTokenError';
  constructor(code: ApprovalTokenErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

export const SlackRequestErrorCode = {
  /** X-Slack-Signature or X-Slack-Request-Timestamp absent or empty. */
  SignatureMissing: 'SW_SLACK_SIGNATURE_MISSING',
  /** The signature does not match the body, or a header is not in Slack's format. */
  SignatureInvalid: 'SW_SLACK_SIGNATURE_INVALID',
  /** Signed more than the allowed age away from now (a replay, or a badly wrong clock). */
  TimestampStale: 'SW_SLACK_TIMESTAMP_STALE',
  /** Signed, but not an interaction we handle. */
  PayloadInvalid: 'SW_SLACK_PAYLOAD_INVALID',
} as const;
export type SlackRequestErrorCode =
  (typeof SlackRequestErrorCode)[keyof typeof SlackRequestErrorCode];

export class SlackRequestError extends StepwiseError {
  override readonly code: SlackRequestErrorCode;
  override name = 'SlackRequestError';
  constructor(code: SlackRequestErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
