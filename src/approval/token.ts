/**
 * Signed approval-link tokens: `v1.<payload>.<signature>`, where payload is the base64url of a
 * compact JSON of the claims and signature the base64url of HMAC-SHA256(key, "v1." + payload).
 * A token binds one decision to one Rollout UID, revision, step and wait (the start of the
 * AwaitingApproval pause it was issued for) until it expires; single use
 * is the caller's job (it records `id` once used). Verification is strict: anything we could not
 * have issued is refused before it is parsed, and only canonical base64url is accepted, so a
 * change to any character of a token changes the bytes it stands for.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApprovalTokenError, ApprovalTokenErrorCode } from './errors.ts';

export type Decision = 'Approve' | 'Reject';

export interface ApprovalClaims {
  readonly rolloutUid: string;
  readonly namespace: string;
  readonly name: string;
  /** The pod-template hash of the revision the decision is for. */
  readonly revision: string;
  /** The canary step index. */
  readonly step: number;
  /** Epoch ms the wait it was issued for began: a later wait at the step (after a retry or a
   *  rollback) refuses it. */
  readonly waitStart: number;
  readonly decision: Decision;
  /** Epoch seconds; the token is refused from this second on. */
  readonly expiresAt: number;
  /** Random token id (base64url of 16 bytes), for single use and the audit trail. */
  readonly id: string;
}

export type VerifyResult =
  | { readonly ok: true; readonly claims: ApprovalClaims }
  | { readonly ok: false; readonly error: ApprovalTokenError };

/** Tokens longer than this are refused before any work (a link never needs more). */
export const MAX_TOKEN_LENGTH = 1024;
/** Keys shorter than this are refused for signing (HMAC-SHA256 wants at least its output size). */
export const MIN_KEY_BYTES = 32;
const VERSION = 'v1';
const SIGNATURE_BYTES = 32;
const TOKEN_ID_BYTES = 16;

/** Short JSON keys keep links short; the order here is the order in every token. */
const Field = {
  rolloutUid: 'u',
  namespace: 'n',
  name: 'm',
  revision: 'r',
  step: 's',
  waitStart: 'w',
  decision: 'd',
  expiresAt: 'e',
  id: 'i',
} as const;
const FIELD_COUNT = Object.keys(Field).length;
const DecisionCode = { Approve: 'A', Reject: 'R' } as const;

const UID = /^[A-Za-z0-9-]{1,64}$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const REVISION = /^[A-Za-z0-9_-]{1,63}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Signs the claims with `key`. Throws ApprovalTokenError (malformed) for claims that could
 *  never verify, and for a key shorter than MIN_KEY_BYTES: both are programming errors. */
export function signApprovalToken(claims: ApprovalClaims, key: Buffer): string {
  if (key.length < MIN_KEY_BYTES) {
    throw malformed(`the signing key must be at least ${MIN_KEY_BYTES} bytes`);
  }
  const problem = claimsProblem(claims);
  if (problem !== undefined) throw malformed(`claims cannot be signed: ${problem}`);
  const payload = Buffer.from(JSON.stringify(compact(claims))).toString('base64url');
  const token = `${VERSION}.${payload}.${mac(key, payload).toString('base64url')}`;
  if (token.length > MAX_TOKEN_LENGTH) {
    throw malformed(
      `claims cannot be signed: the token would exceed ${MAX_TOKEN_LENGTH} characters`,
    );
  }
  return token;
}

/** Checks a token: keys[0] is the current key, the others are still accepted (rotation). */
export function verifyApprovalToken(
  token: string,
  keys: readonly Buffer[],
  nowSeconds: number,
): VerifyResult {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) {
    return refuse(malformed(`an approval token is at most ${MAX_TOKEN_LENGTH} characters`));
  }
  const parts = token.split('.');
  if (parts.length !== 3)
    return refuse(malformed('an approval token has three dot-separated parts'));
  const [version = '', payload = '', signature = ''] = parts;
  if (version !== VERSION) return refuse(malformed(`unsupported approval token version`));
  const sent = decodeBase64url(signature);
  if (sent === undefined || sent.length !== SIGNATURE_BYTES) {
    return refuse(malformed('the token signature is not a base64url HMAC-SHA256'));
  }
  const body = decodeBase64url(payload);
  if (body === undefined || body.length === 0) {
    return refuse(malformed('the token payload is not base64url'));
  }
  if (!keys.some((key) => key.length > 0 && timingSafeEqual(mac(key, payload), sent))) {
    return refuse(
      new ApprovalTokenError(
        ApprovalTokenErrorCode.Signature,
        'the approval token was not signed by a configured key (altered, or the key was rotated out)',
      ),
    );
  }
  const claims = parseClaims(body);
  if (typeof claims === 'string')
    return refuse(malformed(`the token claims are invalid: ${claims}`));
  if (nowSeconds >= claims.expiresAt) {
    return refuse(
      new ApprovalTokenError(
        ApprovalTokenErrorCode.Expired,
        `the approval link expired at ${new Date(claims.expiresAt * 1000).toISOString()}`,
      ),
    );
  }
  return { ok: true, claims };
}

/** A fresh token id: 16 random bytes as base64url (22 characters). */
export function newTokenId(random: (n: number) => Buffer = randomBytes): string {
  const bytes = random(TOKEN_ID_BYTES);
  if (bytes.length !== TOKEN_ID_BYTES) {
    throw new RangeError(`the random source gave ${bytes.length} bytes, not ${TOKEN_ID_BYTES}`);
  }
  return bytes.toString('base64url');
}

function mac(key: Buffer, payload: string): Buffer {
  return createHmac('sha256', key).update(`${VERSION}.${payload}`).digest();
}

/** Only canonical base64url: re-encoding gives back the same text, so every character counts. */
function decodeBase64url(text: string): Buffer | undefined {
  if (!BASE64URL.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function compact(c: ApprovalClaims): Record<string, string | number> {
  return {
    [Field.rolloutUid]: c.rolloutUid,
    [Field.namespace]: c.namespace,
    [Field.name]: c.name,
    [Field.revision]: c.revision,
    [Field.step]: c.step,
    [Field.waitStart]: c.waitStart,
    [Field.decision]: DecisionCode[c.decision],
    [Field.expiresAt]: c.expiresAt,
    [Field.id]: c.id,
  };
}

/** Strict: a JSON object with exactly our keys, each of the right type; else what is wrong. */
function parseClaims(body: Buffer): ApprovalClaims | string {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return 'not JSON';
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'not an object';
  const o = json as Record<string, unknown>;
  const known: ReadonlySet<string> = new Set(Object.values(Field));
  const unknown = Object.keys(o).filter((k) => !known.has(k));
  if (unknown.length > 0 || Object.keys(o).length !== FIELD_COUNT) {
    return 'unexpected or missing fields';
  }
  const d = o[Field.decision];
  const claims = {
    rolloutUid: o[Field.rolloutUid],
    namespace: o[Field.namespace],
    name: o[Field.name],
    revision: o[Field.revision],
    step: o[Field.step],
    waitStart: o[Field.waitStart],
    decision:
      d === DecisionCode.Approve ? 'Approve' : d === DecisionCode.Reject ? 'Reject' : undefined,
    expiresAt: o[Field.expiresAt],
    id: o[Field.id],
  };
  const problem = claimsProblem(claims);
  return problem ?? (claims as ApprovalClaims);
}

/** What makes these claims unsignable, or undefined. Takes unknowns: it also checks parsed JSON. */
function claimsProblem(c: { readonly [K in keyof ApprovalClaims]: unknown }): string | undefined {
  if (!matches(c.rolloutUid, UID)) return 'rolloutUid must be a Kubernetes UID';
  if (!matches(c.namespace, DNS_LABEL)) return 'namespace must be a DNS label';
  if (!matches(c.name, DNS_SUBDOMAIN)) return 'name must be a DNS subdomain name';
  if (!matches(c.revision, REVISION)) return 'revision must be a pod-template hash';
  if (!isCount(c.step)) return 'step must be a non-negative integer';
  if (!isCount(c.waitStart)) return 'waitStart must be a non-negative integer (epoch ms)';
  if (c.decision !== 'Approve' && c.decision !== 'Reject') {
    return 'decision must be Approve or Reject';
  }
  if (!isCount(c.expiresAt)) return 'expiresAt must be a non-negative integer (epoch seconds)';
  const id = typeof c.id === 'string' ? decodeBase64url(c.id) : undefined;
  if (id?.length !== TOKEN_ID_BYTES) return `id must be ${TOKEN_ID_BYTES} bytes in base64url`;
  return undefined;
}

const matches = (v: unknown, re: RegExp): boolean => typeof v === 'string' && re.test(v);
const isCount = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const malformed = (message: string) =>
  new ApprovalTokenError(ApprovalTokenErrorCode.Malformed, message);
const refuse = (error: ApprovalTokenError): VerifyResult => ({ ok: false, error });
