// The identity-policy screen: which RolloutApprovals reach the planner, and which are refused with
// what reason, for each state of the policy and its binding; and the check that reads them
// (missing → present, an API error keeps what was known, the log line and gauge).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RolloutApproval } from '../../../src/api/index.ts';
import {
  IdentityPolicyCheck,
  policyState,
  screenApprovals,
} from '../../../src/controller/identity-policy.ts';
import type { IdentityPolicyState } from '../../../src/controller/identity-policy.ts';
import { parseConfig } from '../../../src/controller/config.ts';
import type { KubeObject, Logger } from '../../../src/kube/index.ts';
import { apiStatusError } from '../../../src/kube/errors.ts';
import { FakeClock, flush } from '../../fixtures/kube/fake-clock.ts';
import { FakeKubeApi } from '../../fixtures/kube/fake-kube-api.ts';

const NAME = 'stepwise-rolloutapproval-identity';
const BOUND_AT = '2030-01-01T00:00:10Z';
const NOW = Date.parse('2030-01-01T00:01:00Z');

const policy = {
  apiVersion: 'admissionregistration.k8s.io/v1',
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name: NAME },
};
function binding(spec: object = {}, creationTimestamp = BOUND_AT) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: NAME, creationTimestamp },
    spec: { policyName: NAME, validationActions: ['Deny'], ...spec },
  };
}

function request(name: string, created: string | undefined, answered = false): RolloutApproval {
  return {
    apiVersion: 'stepwise.dev/v1alpha1',
    kind: 'RolloutApproval',
    metadata: {
      name,
      namespace: 'ns',
      ...(created === undefined ? {} : { creationTimestamp: created as unknown as Date }),
    },
    spec: { rolloutName: 'web', revision: 'h', step: 1, decision: 'Approve', approver: 'alice' },
    ...(answered ? { status: { phase: 'Recorded' as const } } : {}),
  };
}

const names = (rs: readonly RolloutApproval[]) => rs.map((r) => r.metadata.name);
const refusals = (state: IdentityPolicyState, requests: RolloutApproval[]) =>
  screenApprovals(requests, state, NOW).writes.flatMap((w) =>
    w.kind === 'markApproval' ? [[w.name, w.status.phase, w.status.reason]] : [],
  );

describe('the identity policy state', () => {
  it('is present, since the binding was made, only with the policy and a denying binding', () => {
    assert.deepEqual(policyState(NAME, policy, binding()), {
      kind: 'present',
      since: Date.parse(BOUND_AT),
    });
    const cases: [string, KubeObject | undefined, KubeObject | undefined, RegExp][] = [
      ['no policy', undefined, binding(), /ValidatingAdmissionPolicy \S+ not found/],
      ['no binding', policy, undefined, /ValidatingAdmissionPolicyBinding \S+ not found/],
      ['another policy bound', policy, binding({ policyName: 'other' }), /binds "other"/],
      ['warn only', policy, binding({ validationActions: ['Warn'] }), /does not deny \(.*Warn/],
    ];
    for (const [what, p, b, problem] of cases) {
      const state = policyState(NAME, p, b);
      assert.equal(state.kind, 'missing', what);
      assert.match(state.kind === 'missing' ? state.problem : '', problem, what);
    }
  });
});

describe('screening RolloutApprovals', () => {
  const before = request('before', '2030-01-01T00:00:09Z');
  const same = request('same-second', BOUND_AT);
  const after = request('after', '2030-01-01T00:00:30Z');
  const undated = request('undated', undefined);
  const recorded = request('recorded-long-ago', '2029-01-01T00:00:00Z', true);
  const all = [before, same, after, undated, recorded];

  it('policy in force: those made before its binding (or undated) are refused, the rest judged', () => {
    const state: IdentityPolicyState = { kind: 'present', since: Date.parse(BOUND_AT) };
    const out = screenApprovals(all, state, NOW);
    assert.deepEqual(names(out.admitted), ['same-second', 'after', 'recorded-long-ago']);
    assert.deepEqual(refusals(state, all), [
      ['before', 'Refused', 'PredatesIdentityPolicy'],
      ['undated', 'Refused', 'PredatesIdentityPolicy'],
    ]);
    const events = out.writes.filter((w) => w.kind === 'event');
    assert.deepEqual(
      events.map((e) => [e.type, e.reason]),
      [
        ['Warning', 'PredatesIdentityPolicy'],
        ['Warning', 'PredatesIdentityPolicy'],
      ],
    );
    assert.match(
      events[0]?.message ?? '',
      /^Approve by alice \(RolloutApproval before\) refused: /,
    );
  });

  it('policy missing: every pending one is refused, saying what is missing', () => {
    const state: IdentityPolicyState = { kind: 'missing', problem: 'binding X not found' };
    const out = screenApprovals(all, state, NOW);
    assert.deepEqual(names(out.admitted), ['recorded-long-ago'], 'answered ones are history');
    assert.deepEqual(
      refusals(state, all).map(([name, , reason]) => [name, reason]),
      ['before', 'same-second', 'after', 'undated'].map((n) => [n, 'IdentityPolicyMissing']),
    );
    const mark = out.writes.find((w) => w.kind === 'markApproval');
    assert.ok(mark?.kind === 'markApproval');
    assert.match(mark.status.message ?? '', /binding X not found/);
    assert.equal(mark.status.at, new Date(NOW).toISOString());
  });

  it('not read yet: pending ones wait, neither judged nor refused', () => {
    const out = screenApprovals(all, { kind: 'unknown' }, NOW);
    assert.deepEqual(names(out.admitted), ['recorded-long-ago']);
    assert.deepEqual(out.writes, []);
  });

  it('--trust-approvals-without-identity-policy: all are judged', () => {
    const out = screenApprovals(all, { kind: 'trusted' }, NOW);
    assert.deepEqual(out.admitted, all);
    assert.deepEqual(out.writes, []);
  });
});

describe('the identity policy check', () => {
  function setup(trusted = false, namespaced = false) {
    const api = new FakeKubeApi();
    const clock = new FakeClock(NOW);
    const logged: [string, string][] = [];
    const log = (level: string) => (msg: string) => logged.push([level, msg]);
    const logger: Logger = {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
    };
    const gauge: number[] = [];
    const check = new IdentityPolicyCheck({
      api,
      name: NAME,
      trusted,
      namespaced,
      clock,
      log: logger,
      gauge: { set: (v: number) => void gauge.push(v) },
    });
    return { api, clock, logged, gauge, check };
  }

  it('says so when the policy is missing, and sees it installed at the next read', async () => {
    const { api, clock, logged, gauge, check } = setup();
    assert.equal(check.state().kind, 'unknown');
    await check.start();
    assert.equal(check.state().kind, 'missing');
    assert.deepEqual(logged.at(-1), [
      'error',
      'identity policy missing: RolloutApprovals (plugin decisions) are refused',
    ]);
    api.seed(policy);
    api.seed(binding());
    await clock.tick(10_000);
    await flush();
    assert.deepEqual(check.state(), { kind: 'present', since: Date.parse(BOUND_AT) });
    assert.deepEqual(gauge, [0, 0, 1]);
    check.stop();
    assert.equal(clock.pending(), 0, 'no read after stop');
  });

  it('an API error keeps what was known (no refusal for a passing error)', async () => {
    const { api, clock, logged, check } = setup();
    api.seed(policy);
    api.seed(binding());
    await check.start();
    assert.equal(check.state().kind, 'present');
    api.failWith = () => apiStatusError(503);
    await clock.tick(10_000);
    await flush();
    assert.equal(check.state().kind, 'present');
    assert.equal(logged.at(-1)?.[0], 'warn');
    check.stop();
  });

  it('namespaced: never reads (a Role cannot grant it), and the policy is missing, saying why', async () => {
    const { api, logged, gauge, check } = setup(false, true);
    api.seed(policy);
    api.seed(binding());
    await check.start();
    const state = check.state();
    assert.equal(state.kind, 'missing');
    assert.match(state.kind === 'missing' ? state.problem : '', /runs namespaced \(--namespaced\)/);
    assert.deepEqual(api.requests, []);
    assert.equal(logged.at(-1)?.[0], 'error');
    assert.deepEqual(gauge, [0, 0]);
    check.stop();
  });

  it('trusted: never reads, warns once, and counts as in force', async () => {
    const { api, logged, gauge, check } = setup(true);
    await check.start();
    assert.deepEqual(check.state(), { kind: 'trusted' });
    assert.deepEqual(api.requests, []);
    assert.equal(logged[0]?.[0], 'warn');
    assert.deepEqual(gauge, [1]);
  });

  it('flags: the policy name and the opt-out', () => {
    assert.deepEqual(parseConfig([], {}).identityPolicy, { name: NAME, trusted: false });
    assert.deepEqual(
      parseConfig(
        [
          '--identity-policy=rel-rolloutapproval-identity',
          '--trust-approvals-without-identity-policy',
        ],
        {},
      ).identityPolicy,
      { name: 'rel-rolloutapproval-identity', trusted: true },
    );
  });
});
