/**
 * Both transports to the API server (node:https over our kubeconfig reader, the production path;
 * client-node's, for users with auth plugins) against a loopback HTTP server: the request line,
 * headers, a JSON reply, an error Status, and a streamed watch.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { kubeApiOver } from '../../../src/kube/apply.ts';
import { kubeConfigTransport } from '../../../src/kube/client-node-transport.ts';
import { httpsTransport } from '../../../src/kube/https-transport.ts';
import type { KubeApi } from '../../../src/kube/kube-api.ts';
import { ApiStatusError, type ApiError } from '../../../src/kube/errors.ts';
import type { WatchEvent } from '../../../src/kube/kube-api.ts';
import type { KubeObject } from '../../../src/kube/objects.ts';
import { Resources } from '../../../src/kube/resources.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  rawHeaders: string[];
  body: string;
}
const seen: Seen[] = [];
let handler: (req: IncomingMessage, res: ServerResponse) => void = (_q, res) => res.end('{}');
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    const { method = '', url = '', headers, rawHeaders } = req;
    seen.push({ method, url, headers, rawHeaders, body });
    handler(req, res);
  });
});

let kc: KubeConfig;
let port = 0;
before(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 't0ken' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const transports: Record<string, () => KubeApi> = {
  'node:https (our kubeconfig reader)': () =>
    kubeApiOver(
      httpsTransport({
        server: `http://127.0.0.1:${port}`,
        insecureSkipTlsVerify: false,
        authorization: () => 'Bearer t0ken',
        source: 'test',
      }),
    ),
  "client-node's": () => kubeApiOver(kubeConfigTransport(kc)),
};

for (const [name, client] of Object.entries(transports)) {
  describe(name, () => {
    test('apply over HTTP: path, query, content type, bearer token, JSON back', async () => {
      handler = (_q, res) => {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'v1',
            kind: 'Service',
            metadata: { name: 's', resourceVersion: '3' },
          }),
        );
      };
      const api = client();
      const out: KubeObject = await api.apply({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', namespace: 'shop' },
      });
      assert.equal(out.metadata?.resourceVersion, '3');
      const r = seen.at(-1);
      assert.equal(r?.method, 'PATCH');
      assert.equal(
        r?.url,
        '/api/v1/namespaces/shop/services/s?fieldManager=stepwise-controller&fieldValidation=Strict&force=true',
      );
      assert.equal(r?.headers['content-type'], 'application/apply-patch+yaml');
      assert.equal(r?.headers['authorization'], 'Bearer t0ken');
      assert.deepEqual(JSON.parse(r?.body ?? ''), {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', namespace: 'shop' },
      });
    });

    test('an error Status over HTTP keeps its reason', async () => {
      handler = (_q, res) => {
        res.statusCode = 409;
        res.end(
          JSON.stringify({
            kind: 'Status',
            code: 409,
            reason: 'Conflict',
            message: 'the object has been modified',
          }),
        );
      };
      await assert.rejects(
        client().update({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'c', namespace: 'n', resourceVersion: '1' },
        }),
        (e: unknown) =>
          e instanceof ApiStatusError && e.reason === 'Conflict' && /modified/.test(e.message),
      );
    });

    test('a watch streams events over HTTP and ends cleanly when the server closes it', async () => {
      let push: (s: string) => void = () => undefined;
      let close: () => void = () => undefined;
      handler = (_q, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        push = (s) => res.write(s);
        close = () => res.end();
      };
      const events: WatchEvent<KubeObject>[] = [];
      let resolveDone: (e: ApiError | undefined) => void = () => undefined;
      const done = new Promise<ApiError | undefined>((r) => (resolveDone = r));
      let gotTwo: () => void = () => undefined;
      const two = new Promise<void>((r) => (gotTwo = r));
      await client().watch(
        Resources.Pod,
        { namespace: 'shop', resourceVersion: '5', allowWatchBookmarks: true, timeoutSeconds: 300 },
        (e) => {
          if (events.push(e) === 2) gotTwo();
        },
        resolveDone,
      );
      assert.equal(
        seen.at(-1)?.url,
        '/api/v1/namespaces/shop/pods?watch=true&resourceVersion=5&allowWatchBookmarks=true&timeoutSeconds=300',
      );
      push('{"type":"ADDED","object":{"metadata":{"name":"p","resourceVersion":"6"}}}\n');
      push('{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"7"}}}\n');
      await two;
      close();
      assert.equal(await done, undefined);
      assert.deepEqual(
        events.map((e) => e.type),
        ['ADDED', 'BOOKMARK'],
      );
    });
  });
}

test('node:https: a header given as a list goes out as one line per value', async () => {
  handler = (_q, res) => res.end('{}');
  const transport = httpsTransport({
    server: `http://127.0.0.1:${port}`,
    insecureSkipTlsVerify: false,
    authorization: () => undefined,
    source: 'test',
  });
  const res = await transport.send({
    method: 'GET',
    path: '/api',
    headers: { 'Impersonate-User': 'alice', 'Impersonate-Group': ['team-a', 'a,b'] },
  });
  await res.text();
  const lines = (seen.at(-1)?.rawHeaders ?? []).flatMap((v, i, all) =>
    i % 2 === 0 && /^impersonate-/i.test(v) ? [`${v}: ${all[i + 1]}`] : [],
  );
  assert.deepEqual(lines, [
    'Impersonate-User: alice',
    'Impersonate-Group: team-a',
    'Impersonate-Group: a,b',
  ]);
});
