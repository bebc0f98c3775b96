import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiException } from '@kubernetes/client-node';
import { StepwiseError } from '../../../src/api/index.ts';
import {
  apiStatusError,
  ApiStatusError,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  isRetriable,
  isTooManyRequests,
  KubeTransportError,
  toApiError,
} from '../../../src/kube/errors.ts';

const status = (code: number, reason: string, extra: object = {}) => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  code,
  reason,
  message: `${reason} happened`,
  ...extra,
});

describe('ApiStatusError', () => {
  test('takes reason, message and retryAfter from a Status body (object or JSON text)', () => {
    const e = apiStatusError(
      429,
      JSON.stringify(status(429, 'TooManyRequests', { details: { retryAfterSeconds: 2 } })),
    );
    assert.ok(e instanceof StepwiseError);
    assert.equal(e.code, 'SW_KUBE_API_STATUS');
    assert.equal(e.name, 'ApiStatusError');
    assert.equal(e.httpStatus, 429);
    assert.equal(e.reason, 'TooManyRequests');
    assert.equal(e.message, 'TooManyRequests happened');
    assert.equal(e.retryAfterSeconds, 2);
  });

  test('a Retry-After header wins over the body; without a Status the reason comes from the code', () => {
    const e = apiStatusError(503, '<html>busy</html>', '5');
    assert.equal(e.reason, 'ServiceUnavailable');
    assert.equal(e.retryAfterSeconds, 5);
    assert.equal(e.message, '<html>busy</html>');
    assert.equal(apiStatusError(418).reason, 'Unknown');
  });
});

describe('toApiError', () => {
  test("converts client-node's ApiException", () => {
    const ex = new ApiException(
      409,
      'Unsuccessful HTTP Request',
      JSON.stringify(status(409, 'Conflict')),
      {},
    );
    const e = toApiError(ex);
    assert.ok(e instanceof ApiStatusError);
    assert.equal(e.reason, 'Conflict');
    assert.equal(e.cause, ex);
  });

  test("converts client-node Watch's HTTP error (statusCode only)", () => {
    const e = toApiError(Object.assign(new Error('Gone'), { statusCode: 410 }));
    assert.ok(isGone(e));
  });

  test('converts a watch ERROR Status', () => {
    assert.ok(isGone(toApiError(status(410, 'Expired'))));
  });

  test('fetch failures and aborts become KubeTransportError', () => {
    const refused = toApiError(
      new TypeError('fetch failed', {
        cause: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }),
      }),
    );
    assert.ok(refused instanceof KubeTransportError);
    assert.equal(refused.code, 'SW_KUBE_TRANSPORT');
    assert.match(refused.message, /ECONNREFUSED/);
    assert.equal(refused.aborted, false);
    const aborted = toApiError(new DOMException('aborted', 'AbortError'));
    assert.ok(aborted instanceof KubeTransportError && aborted.aborted);
    assert.ok(toApiError('weird') instanceof KubeTransportError);
  });

  test('returns ApiErrors unchanged', () => {
    const e = apiStatusError(404);
    assert.equal(toApiError(e), e);
  });
});

describe('classification', () => {
  const rows: [string, unknown, Record<string, boolean>][] = [
    [
      '409 Conflict',
      apiStatusError(409, status(409, 'Conflict')),
      { conflict: true, retriable: true },
    ],
    ['409 AlreadyExists', apiStatusError(409, status(409, 'AlreadyExists')), { exists: true }],
    ['409 without a Status', apiStatusError(409), { conflict: true, retriable: true }],
    ['404', apiStatusError(404, status(404, 'NotFound')), { notFound: true }],
    ['410 Gone', apiStatusError(410, status(410, 'Gone')), { gone: true }],
    ['410 Expired', apiStatusError(410, status(410, 'Expired')), { gone: true }],
    ['429', apiStatusError(429), { tooMany: true, retriable: true }],
    ['500', apiStatusError(500), { retriable: true }],
    ['504', apiStatusError(504), { retriable: true }],
    ['422 Invalid', apiStatusError(422, status(422, 'Invalid')), {}],
    ['403', apiStatusError(403), {}],
    ['transport', new KubeTransportError('reset'), { retriable: true }],
    ['aborted', new KubeTransportError('stop', { aborted: true }), {}],
    ['plain Error', new Error('x'), {}],
  ];
  for (const [name, err, want] of rows) {
    test(name, () => {
      assert.deepEqual(
        {
          conflict: isConflict(err),
          exists: isAlreadyExists(err),
          notFound: isNotFound(err),
          gone: isGone(err),
          tooMany: isTooManyRequests(err),
          retriable: isRetriable(err),
        },
        {
          conflict: false,
          exists: false,
          notFound: false,
          gone: false,
          tooMany: false,
          retriable: false,
          ...want,
        },
      );
    });
  }
});
