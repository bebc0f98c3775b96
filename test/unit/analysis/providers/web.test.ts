// The web provider against a loopback endpoint: methods, bodies, args, headers from Secrets,
// JSONPath into the answer, raw text answers, and failures as Error measurements.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Metric, WebMetric } from '../../../../src/api/index.ts';
import { webProvider as createWebProvider } from '../../../../src/analysis/providers/index.ts';
import type { ProviderOutcome } from '../../../../src/analysis/evaluate/index.ts';
import { closedPortUrl, context, Endpoint, loopbackAllowed, MemorySecrets } from './support.ts';

const webProvider = createWebProvider({ egress: loopbackAllowed });

let web: Endpoint;
before(async () => (web = await Endpoint.start()));
after(() => web.close());

const metric = (w: Partial<WebMetric> = {}): Metric => ({
  name: 'health',
  provider: { web: { url: `${web.url}/health`, ...w } },
});
const json = (v: unknown) => ({ body: JSON.stringify(v) });

function outcome(o: ProviderOutcome): string | { result: unknown; value: string } {
  return o.ok === true ? { result: o.result, value: o.value } : o.message;
}

describe('the web provider', () => {
  it('GETs the url and reads jsonPath from the answer', async () => {
    web.script([json({ data: { rate: 0.99 } })]);
    const o = await webProvider.measure(metric({ jsonPath: '{$.data.rate}' }), context());
    assert.deepEqual(outcome(o), { result: 0.99, value: '0.99' });
    assert.equal(web.seen.at(-1)?.method, 'GET');
  });

  it('returns the whole answer with the default {$}, objects as JSON text', async () => {
    web.script([json({ ok: true })]);
    const o = await webProvider.measure(metric(), context());
    assert.deepEqual(outcome(o), { result: { ok: true }, value: '{"ok":true}' });
  });

  it('POSTs a jsonBody, and substitutes args in url, body and headers', async () => {
    web.script([json([1])]);
    const secrets = new MemorySecrets();
    secrets.values.set('ns/api/token', 'tok');
    const m = metric({
      method: 'POST',
      url: `${web.url}/q/{{args.svc}}`,
      jsonBody: { query: 'errors' },
      headers: [
        { key: 'Authorization', valueFrom: { secretKeyRef: { name: 'api', key: 'token' } } },
        { key: 'X-Svc', value: '{{args.svc}}' },
      ],
    });
    await webProvider.measure(m, context({ svc: 'web' }, secrets));
    const seen = web.seen.at(-1);
    assert.equal(seen?.method, 'POST');
    assert.equal(seen?.url.pathname, '/q/web');
    assert.deepEqual(JSON.parse(seen?.body ?? ''), { query: 'errors' });
    assert.equal(seen?.headers['content-type'], 'application/json');
    assert.equal(seen?.headers.authorization, 'tok');
    assert.equal(seen?.headers['x-svc'], 'web');
  });

  it('a text answer is the result as it is', async () => {
    web.script([{ type: 'text/plain', body: 'OK' }]);
    assert.deepEqual(outcome(await webProvider.measure(metric(), context())), {
      result: 'OK',
      value: 'OK',
    });
  });

  const faults: readonly [string, () => Promise<ProviderOutcome>, RegExp][] = [
    [
      'a non-2xx answer',
      () => {
        web.script([{ status: 404, body: 'nope' }]);
        return webProvider.measure(metric(), context());
      },
      /received non 2xx response code: 404/,
    ],
    [
      'a path that finds nothing',
      () => {
        web.script([json({ a: 1 })]);
        return webProvider.measure(metric({ jsonPath: '{$.b}' }), context());
      },
      /jsonPath \{\$\.b\} found nothing/,
    ],
    [
      'a refused connection',
      async () => webProvider.measure(metric({ url: `${await closedPortUrl()}/x` }), context()),
      /unreachable: ECONNREFUSED/,
    ],
    [
      'an endpoint slower than timeoutSeconds',
      () => {
        web.script(['hang']);
        return webProvider.measure(metric({ timeoutSeconds: 1 }), context());
      },
      /timed out after 1s/,
    ],
    [
      'a missing Secret',
      () =>
        webProvider.measure(
          metric({ headers: [{ key: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }),
          context(),
        ),
      /Secret "ns\/s" not found/,
    ],
  ];
  for (const [name, run, why] of faults) {
    it(`${name} is an Error`, async () => {
      const o = await run();
      assert.ok(o.ok === false && why.test(o.message), JSON.stringify(o));
    });
  }
});
