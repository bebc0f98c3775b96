import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CliError,
  errorLine,
  isConflict,
  networkCause,
  toCliError,
} from '../../../src/cli/errors.ts';
import type { RequestContext } from '../../../src/cli/errors.ts';
import { apiStatusError } from '../../../src/kube/errors.ts';
import { parseDurationFlag as parseDuration } from '../../../src/cli/commands/common.ts';

const server = 'https://127.0.0.1:6443';
const patchCtx: RequestContext = {
  server,
  verb: 'patch',
  resource: 'rollouts/status',
  namespace: 'ns',
  name: 'web',
};
/** What the client throws for an answer: a Status body as the API server sends it. */
const apiError = (code: number, body: string | Record<string, unknown>) =>
  apiStatusError(code, typeof body === 'string' ? body : { kind: 'Status', code, ...body });

test('403: the server message becomes "forbidden: user ... cannot VERB RESOURCE in namespace"', () => {
  const body = JSON.stringify({
    kind: 'Status',
    message:
      'rollouts.stepwise.dev "web" is forbidden: User "system:serviceaccount:ns:nobody" cannot patch resource "rollouts/status" in API group "stepwise.dev" in the namespace "ns"',
    reason: 'Forbidden',
    code: 403,
  });
  const err = toCliError(apiError(403, body), patchCtx);
  assert.equal(
    err.message,
    'forbidden: user "system:serviceaccount:ns:nobody" cannot patch rollouts/status in namespace "ns"',
  );
  assert.equal(err.httpStatus, 403);
  const cluster = toCliError(
    apiError(403, {
      message:
        'rollouts.stepwise.dev is forbidden: User "u" cannot list resource "rollouts" in API group "stepwise.dev" at the cluster scope',
    }),
    { server, verb: 'list', resource: 'rollouts' },
  );
  assert.equal(cluster.message, 'forbidden: user "u" cannot list rollouts at the cluster scope');
  // an answer without a Status body: only the code
  const watch = toCliError(apiStatusError(403), {
    server,
    verb: 'watch',
    resource: 'pods',
    namespace: 'ns',
  });
  assert.equal(watch.message, 'forbidden: cannot watch pods in namespace "ns"');
});

test('403 from an admission policy: the policy and its message, on one line', () => {
  const err = toCliError(
    apiError(403, {
      message:
        "rollouts.stepwise.dev \"web\" is forbidden: ValidatingAdmissionPolicy 'stepwise-rollout-status-gate' with binding 'stepwise-rollout-status-gate' denied request: status.promoteFull: step 2 or a later one is an approval step; full promotion would skip it (rule promote-full-skips-approval)",
      reason: 'Invalid',
      code: 403,
    }),
    patchCtx,
  );
  assert.equal(
    err.message,
    'refused by the API server (admission policy stepwise-rollout-status-gate): status.promoteFull: step 2 or a later one is an approval step; full promotion would skip it (rule promote-full-skips-approval)',
  );
});

test('404: a missing rollout vs. a missing CRD', () => {
  const missing = toCliError(
    apiError(404, {
      reason: 'NotFound',
      message: 'rollouts.stepwise.dev "x" not found',
      details: { name: 'x' },
    }),
    { server, verb: 'get', resource: 'rollouts', namespace: 'y', name: 'x' },
  );
  assert.equal(missing.message, 'rollout "x" not found in namespace "y"');
  const noCrd = toCliError(apiError(404, '404 page not found'), {
    server,
    verb: 'get',
    resource: 'rollouts',
    namespace: 'y',
    name: 'x',
  });
  assert.equal(
    noCrd.message,
    `the server at ${server} does not serve rollouts.stepwise.dev/v1alpha1 (are the Stepwise CRDs installed?)`,
  );
});

test('409 is a conflict; 401 names the server', () => {
  const conflict = toCliError(apiError(409, { message: 'the object has been modified' }), patchCtx);
  assert.ok(isConflict(conflict));
  assert.ok(isConflict(apiError(409, '')));
  assert.ok(!isConflict(new Error('x')));
  assert.match(
    toCliError(apiError(401, 'Unauthorized'), patchCtx).message,
    /^unauthorized: the Kubernetes API at https:\/\/127\.0\.0\.1:6443 rejected/,
  );
});

test('network errors: the innermost system error, with the server address', () => {
  const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
    code: 'ECONNREFUSED',
  });
  const fetchFailed = new TypeError('fetch failed', { cause });
  assert.deepEqual(networkCause(fetchFailed), {
    code: 'ECONNREFUSED',
    message: 'connect ECONNREFUSED 127.0.0.1:1',
  });
  assert.equal(
    toCliError(fetchFailed, patchCtx).message,
    `cannot reach the Kubernetes API at ${server}: connect ECONNREFUSED 127.0.0.1:1`,
  );
  const aggregate = new TypeError('fetch failed', {
    cause: new AggregateError([cause], 'all failed'),
  });
  assert.match(toCliError(aggregate, patchCtx).message, /ECONNREFUSED 127\.0\.0\.1:1$/);
  const tls = new TypeError('fetch failed', {
    cause: Object.assign(new Error('self-signed certificate'), {
      code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
    }),
  });
  assert.match(toCliError(tls, patchCtx).message, /cannot reach .*: self-signed certificate$/);
});

test('one line, always', () => {
  assert.equal(errorLine(new Error('first\n  at stack')), 'Error: first');
  assert.equal(errorLine('plain'), 'Error: plain');
  const e = new CliError('x');
  assert.equal(toCliError(e, patchCtx), e);
  assert.equal(e.exitCode, 1);
});

test('durations', () => {
  assert.equal(parseDuration('0'), 0);
  assert.equal(parseDuration('30s'), 30_000);
  assert.equal(parseDuration('5m'), 300_000);
  assert.equal(parseDuration('1h30m'), 5_400_000);
  assert.equal(parseDuration('250ms'), 250);
  assert.equal(parseDuration('2'), 2000);
  assert.equal(parseDuration('1.5s'), 1500);
  assert.equal(parseDuration('5x'), undefined);
  assert.equal(parseDuration(''), undefined);
  // The flags' spellings, read by Go's grammar: no more, no fewer than before.
  assert.equal(parseDuration(' 1.5h '), 5_400_000);
  assert.equal(parseDuration('1m30.5s'), 90_500);
  for (const refused of ['+5s', '.5s', '5.s', '500us', '10ns', '-5s', '1e3s', '5 s']) {
    assert.equal(parseDuration(refused), undefined, refused);
  }
});

test('network errors without a code we know still name the server; OpenSSL by its reason', () => {
  const odd = new TypeError('fetch failed', {
    cause: Object.assign(new Error('connect EADDRNOTAVAIL 10.0.0.1:6443'), {
      code: 'EADDRNOTAVAIL',
    }),
  });
  assert.equal(
    toCliError(odd, patchCtx).message,
    `cannot reach the Kubernetes API at ${server}: connect EADDRNOTAVAIL 10.0.0.1:6443`,
  );
  assert.equal(
    toCliError(new TypeError('fetch failed'), patchCtx).message,
    `cannot reach the Kubernetes API at ${server}: fetch failed`,
  );
  const ssl = new TypeError('fetch failed', {
    cause: Object.assign(new Error('4087:error:0A00010B:SSL routines::wrong version number'), {
      code: 'ERR_SSL_WRONG_VERSION_NUMBER',
      reason: 'wrong version number',
    }),
  });
  assert.equal(
    toCliError(ssl, patchCtx).message,
    `cannot reach the Kubernetes API at ${server}: TLS handshake failed: wrong version number`,
  );
  const plugin = Object.assign(new Error('spawn aws ENOENT'), {
    code: 'ENOENT',
    syscall: 'spawn aws',
    path: 'aws',
  });
  assert.equal(
    toCliError(plugin, patchCtx).message,
    `cannot run the kubeconfig's credential plugin "aws": ENOENT (connecting to ${server})`,
  );
});
