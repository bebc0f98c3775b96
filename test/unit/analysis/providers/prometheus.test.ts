// The prometheus provider against a loopback endpoint answering in Prometheus' HTTP API shapes
// (https://prometheus.io/docs/prometheus/latest/querying/api/): results as Argo hands them to
// conditions, and every way the server can fail as an Error measurement with a clear message.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Metric, PrometheusMetric } from '../../../../src/api/index.ts';
import { prometheusProvider } from '../../../../src/analysis/providers/index.ts';
import type { ProviderOutcome } from '../../../../src/analysis/evaluate/index.ts';
import { closedPortUrl, context, Endpoint, loopbackAllowed, MemorySecrets } from './support.ts';

const NOW = Date.parse('2026-12-03T12:00:00Z');
let prom: Endpoint;
before(async () => (prom = await Endpoint.start()));
after(() => prom.close());

const metric = (p: Partial<PrometheusMetric> = {}): Metric => ({
  name: 'rate',
  provider: { prometheus: { address: prom.url, query: 'up', ...p } },
});
const provider = prometheusProvider({ now: () => NOW, egress: loopbackAllowed });
const measure = (p: Partial<PrometheusMetric> = {}, args: Record<string, string> = {}) =>
  provider.measure(metric(p), context(args));

const success = (resultType: string, result: unknown, extra: object = {}) => ({
  body: JSON.stringify({ status: 'success', data: { resultType, result }, ...extra }),
});
const vector = (...values: string[]) =>
  success(
    'vector',
    values.map((v, i) => ({ metric: { pod: `p${i}` }, value: [NOW / 1000, v] })),
  );

function ok(o: ProviderOutcome): { result: unknown; value: string; metadata?: object } {
  assert.ok(o.ok === true, o.ok === false ? o.message : '');
  return o;
}
function failed(o: ProviderOutcome): string {
  assert.ok(o.ok === false, `expected an error, got ${JSON.stringify(o)}`);
  return o.message;
}

describe('results as conditions see them', () => {
  const rows: readonly [string, { body: string }, unknown, string][] = [
    ['a vector: one number per series', vector('0.97', '0.5'), [0.97, 0.5], '[0.97,0.5]'],
    ['an empty vector: []', vector(), [], '[]'],
    ['NaN (0/0 with no traffic) is a value', vector('NaN'), [NaN], '[NaN]'],
    ['+Inf and -Inf are values', vector('+Inf', '-Inf'), [Infinity, -Infinity], '[+Inf,-Inf]'],
    ['a scalar: a number', success('scalar', [NOW / 1000, '42']), 42, '42'],
    [
      'a matrix: every sample, flattened',
      success('matrix', [
        {
          metric: {},
          values: [
            [1, '1'],
            [2, '2'],
          ],
        },
        { metric: {}, values: [[1, '3']] },
      ]),
      [1, 2, 3],
      '[1,2,3]',
    ],
  ];
  for (const [name, reply, result, value] of rows) {
    it(name, async () => {
      prom.script([reply]);
      const out = ok(await measure());
      assert.deepEqual(out.result, result);
      assert.equal(out.value, value);
    });
  }

  it('substitutes args in the query, asks at the injected time, and records the query it ran', async () => {
    prom.script([vector('1')]);
    const out = ok(
      await measure(
        { query: 'rate(x{hash="{{args.canary-hash}}"}[1m])' },
        { 'canary-hash': 'abc12' },
      ),
    );
    const asked = prom.seen.at(-1);
    assert.equal(asked?.url.pathname, '/api/v1/query');
    assert.equal(asked?.url.searchParams.get('query'), 'rate(x{hash="abc12"}[1m])');
    assert.equal(asked?.url.searchParams.get('time'), (NOW / 1000).toFixed(3));
    assert.deepEqual(out.metadata, { resolvedPrometheusQuery: 'rate(x{hash="abc12"}[1m])' });
  });

  it('keeps Prometheus warnings in the measurement metadata', async () => {
    prom.script([
      {
        body: JSON.stringify({
          status: 'success',
          data: { resultType: 'vector', result: [] },
          warnings: ['PromQL info: metric might not be a counter'],
        }),
      },
    ]);
    const out = ok(await measure());
    assert.match(JSON.stringify(out.metadata), /might not be a counter/);
  });

  it('a rangeQuery asks query_range with start, end and step from its time expressions', async () => {
    prom.script([success('matrix', [])]);
    ok(
      await measure(
        {
          rangeQuery: { start: 'now() - duration("{{args.lookback}}")', end: 'now()', step: '30s' },
        },
        { lookback: '10m' },
      ),
    );
    const q = prom.seen.at(-1)?.url;
    assert.equal(q?.pathname, '/api/v1/query_range');
    assert.equal(q?.searchParams.get('start'), ((NOW - 600_000) / 1000).toFixed(3));
    assert.equal(q?.searchParams.get('end'), (NOW / 1000).toFixed(3));
    assert.equal(q?.searchParams.get('step'), '30s');
  });
});

describe('credentials and headers', () => {
  it('sends basic auth and headers from Secrets, bearer tokens from Secrets', async () => {
    const secrets = new MemorySecrets();
    secrets.values.set('ns/prom/user', 'ann');
    secrets.values.set('ns/prom/pass', 's3cret');
    secrets.values.set('ns/prom/token', 'tok');
    secrets.values.set('ns/prom/tenant', 'team-a');
    prom.script([vector('1'), vector('1')]);
    const basic = metric({
      authentication: {
        basicAuth: {
          usernameSecretKeyRef: { name: 'prom', key: 'user' },
          passwordSecretKeyRef: { name: 'prom', key: 'pass' },
        },
      },
      headers: [
        { key: 'X-Scope-OrgID', valueFrom: { secretKeyRef: { name: 'prom', key: 'tenant' } } },
        { key: 'X-Env', value: '{{args.env}}' },
      ],
    });
    ok(await provider.measure(basic, context({ env: 'prod' }, secrets)));
    const h = prom.seen.at(-1)?.headers ?? {};
    assert.equal(h.authorization, `Basic ${Buffer.from('ann:s3cret').toString('base64')}`);
    assert.equal(h['x-scope-orgid'], 'team-a');
    assert.equal(h['x-env'], 'prod');
    const bearer = metric({
      authentication: { bearer: { tokenSecretKeyRef: { name: 'prom', key: 'token' } } },
    });
    ok(await provider.measure(bearer, context({}, secrets)));
    assert.equal(prom.seen.at(-1)?.headers.authorization, 'Bearer tok');
  });

  it('a missing Secret is an Error naming it, and nothing is sent', async () => {
    const before = prom.seen.length;
    const m = metric({
      authentication: { bearer: { tokenSecretKeyRef: { name: 'gone', key: 't' } } },
    });
    assert.match(failed(await provider.measure(m, context())), /Secret "ns\/gone" not found/);
    assert.equal(prom.seen.length, before);
  });
});

describe('faults are Error measurements with a clear message', () => {
  it('refused connections: retried, then "unreachable"', async () => {
    const url = await closedPortUrl();
    const message = failed(
      await provider.measure(
        { name: 'r', provider: { prometheus: { address: url, query: 'up' } } },
        context(),
      ),
    );
    assert.match(message, new RegExp(`Prometheus at ${url} unreachable: ECONNREFUSED`));
  });

  it('a reset connection is retried, and the next answer counts', async () => {
    prom.script(['reset', vector('0.9')]);
    const before = prom.seen.length;
    assert.deepEqual(ok(await measure()).result, [0.9]);
    assert.equal(prom.seen.length - before, 2);
  });

  it('503 is retried (2 retries) and then reported with its body', async () => {
    prom.script([], { status: 503, type: 'text/plain', body: 'Service Unavailable' });
    const before = prom.seen.length;
    assert.match(failed(await measure()), /HTTP 503, not a JSON answer: "Service Unavailable"/);
    assert.equal(prom.seen.length - before, 3);
    prom.script([], { status: 404, body: 'no reply scripted' });
  });

  it('a bad query (400) is not retried and says what Prometheus said', async () => {
    prom.script([
      {
        status: 400,
        body: JSON.stringify({
          status: 'error',
          errorType: 'bad_data',
          error: 'parse error at char 5: unexpected "}"',
        }),
      },
    ]);
    const before = prom.seen.length;
    assert.match(
      failed(await measure()),
      /query failed \(HTTP 400, bad_data\): parse error at char 5/,
    );
    assert.equal(prom.seen.length - before, 1);
  });

  it('a server that never answers: timed out after `timeout` seconds', async () => {
    prom.script(['hang', 'hang', 'hang']);
    assert.match(failed(await measure({ timeout: 1 })), /timed out after 1s/);
  });

  const garbage: readonly [string, { status?: number; type?: string; body: string }, RegExp][] = [
    [
      'an HTML error page',
      { status: 502, type: 'text/html', body: '<html><body>Bad Gateway</body></html>' },
      /HTTP 502, not a JSON answer/,
    ],
    ['JSON that is not the API', { body: '{"hello":"world"}' }, /not a Prometheus API answer/],
    ['a string result', success('string', [1, 'x']), /result type "string" is not supported/],
    ['a sample that is not a number', vector('abc'), /malformed vector sample/],
    [
      'a truncated body',
      { body: '{"status":"success","data":{"resultType":"vec' },
      /not a JSON answer/,
    ],
  ];
  for (const [name, reply, pattern] of garbage) {
    it(name, async () => {
      prom.script([reply, reply, reply]);
      assert.match(failed(await measure()), pattern);
    });
  }

  it('a body past 1 MiB is refused, not read into memory', async () => {
    prom.script([{ body: `{"status":"success","pad":"${'x'.repeat(2 * 1024 * 1024)}"}` }]);
    assert.match(failed(await measure()), /larger than 1048576 bytes/);
  });

  it('an unknown arg, no address, a bad range are errors before anything is sent', async () => {
    const before = prom.seen.length;
    assert.match(
      failed(await measure({ query: 'x{h="{{args.nope}}"}' })),
      /unknown argument \{\{args.nope\}\}/,
    );
    assert.match(
      failed(
        await prometheusProvider({ egress: loopbackAllowed }).measure(
          { name: 'r', provider: { prometheus: { query: 'up' } } },
          context(),
        ),
      ),
      /no Prometheus address/,
    );
    assert.match(
      failed(await measure({ rangeQuery: { start: 'yesterday' } })),
      /rangeQuery.start "yesterday" is not a time/,
    );
    assert.equal(prom.seen.length, before);
  });
});

describe('where the provider may connect', () => {
  it("a template's address is checked; the administrator's STEPWISE_PROMETHEUS_ADDRESS is not", async () => {
    // The built-in policy: loopback, where the test server is, is denied.
    const guarded = { now: () => NOW };
    const before = prom.seen.length;
    const templateSet = await prometheusProvider(guarded).measure(
      metric({ address: prom.url }),
      context(),
    );
    assert.match(failed(templateSet), /host not allowed: 127\.0\.0\.1 is loopback/);
    assert.equal(prom.seen.length, before, 'nothing was sent');
    prom.script([vector('1')]);
    const adminSet = await prometheusProvider({ ...guarded, defaultAddress: prom.url }).measure(
      { name: 'r', provider: { prometheus: { query: 'up' } } },
      context(),
    );
    assert.deepEqual(ok(adminSet).result, [1]);
  });
});
