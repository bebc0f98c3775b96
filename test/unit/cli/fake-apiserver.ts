// A tiny Kubernetes API server on 127.0.0.1 for the plugin's unit tests: rollouts (get, list,
// watch; merge patches on /status and merge or JSON patches on the object, with resourceVersion
// preconditions), replicasets and pods (list, watch), analysisruns (get, list, watch), forbidden
// rules, and a log of every request. Plain HTTP; kubeconfigs set insecure-skip-tls-verify.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';

type Obj = {
  metadata: { name: string; namespace: string; resourceVersion?: string; [k: string]: unknown };
  [k: string]: unknown;
};
type Resource = 'rollouts' | 'replicasets' | 'pods' | 'analysisruns' | 'deployments';

export interface PatchRecord {
  namespace: string;
  name: string;
  /** `status` for the /status subresource, else the object itself */
  subresource: 'status' | undefined;
  contentType: string | undefined;
  fieldManager: string | null;
  /** a merge patch (object) or a JSON patch (list of operations) */
  body: Record<string, unknown>;
}

interface JsonPatchOp {
  op: string;
  path: string;
  value?: unknown;
}

/** RFC 6902 replace/add/test, enough for the plugin's patches; throws on a failed test. */
function jsonPatch(target: unknown, ops: readonly JsonPatchOp[]): unknown {
  const doc = structuredClone(target) as Record<string, unknown>;
  for (const op of ops) {
    const keys = op.path
      .split('/')
      .slice(1)
      .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = keys.pop()!;
    let parent: Record<string, unknown> = doc;
    for (const key of keys) {
      const next = parent[key];
      if (typeof next !== 'object' || next === null) throw new Error(`path ${op.path} not found`);
      parent = next as Record<string, unknown>;
    }
    if (op.op === 'test') {
      if (JSON.stringify(parent[last]) !== JSON.stringify(op.value)) {
        throw new Error(`testing value ${op.path} failed`);
      }
    } else if (op.op === 'replace' && !(last in parent)) {
      throw new Error(`replace operation does not apply: doc is missing key: ${op.path}`);
    } else {
      parent[last] = structuredClone(op.value);
    }
  }
  return doc;
}

interface Watcher {
  resource: Resource;
  namespace: string;
  name: string | undefined;
  res: ServerResponse;
}

const ROUTE =
  /^\/(?:apis\/stepwise\.dev\/v1alpha1|apis\/apps\/v1|api\/v1)(?:\/namespaces\/([^/]+))?\/(rollouts|replicasets|pods|analysisruns|deployments)(?:\/([^/]+))?(\/status)?$/;

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

const status = (code: number, reason: string, message: string, details?: object): object => ({
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message,
  reason,
  code,
  ...(details ? { details } : {}),
});

export class FakeApiServer {
  readonly patches: PatchRecord[] = [];
  /** Every request, as `METHOD path?query` (raw, as it arrived). */
  readonly requests: string[] = [];
  /** Requests answered 403 when `(method, path)` matches. */
  forbid: ((method: string, path: string) => boolean) | undefined;
  /** Answer the next N status patches with 409 Conflict. */
  conflicts = 0;
  /** Answer the next N requests with 429 and Retry-After: 0 (the API server busy or its storage
   *  still initialising, as right after a CRD is installed). */
  throttled = 0;
  user = 'jane';
  lastHeaders: IncomingHttpHeaders = {};
  private readonly server: Server;
  private readonly objects = new Map<string, Obj>();
  private readonly watchers = new Set<Watcher>();
  private rv = 100;

  constructor() {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        res.writeHead(500).end(String(err));
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return this.url;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const w of this.watchers) w.res.end();
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  /** A kubeconfig for this server (context namespace optional). */
  writeKubeconfig(file: string, namespace?: string): void {
    const ns = namespace ? `\n    namespace: ${namespace}` : '';
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster:
    server: ${this.url}
    insecure-skip-tls-verify: true
users:
- name: fake
  user:
    token: fake-token
contexts:
- name: fake
  context:
    cluster: fake
    user: fake${ns}
- name: other
  context:
    cluster: fake
    user: fake
    namespace: other
current-context: fake
`,
    );
  }

  /** Creates or replaces an object and notifies watchers. */
  put(resource: Resource, obj: Obj): Obj {
    const key = `${resource}/${obj.metadata.namespace}/${obj.metadata.name}`;
    const type = this.objects.has(key) ? 'MODIFIED' : 'ADDED';
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(++this.rv);
    this.objects.set(key, stored);
    this.notify(resource, type, stored);
    return stored;
  }

  get(resource: Resource, namespace: string, name: string): Obj | undefined {
    return this.objects.get(`${resource}/${namespace}/${name}`);
  }

  delete(resource: Resource, namespace: string, name: string): void {
    const obj = this.get(resource, namespace, name);
    if (!obj) return;
    this.objects.delete(`${resource}/${namespace}/${name}`);
    this.notify(resource, 'DELETED', obj);
  }

  watcherCount(resource: Resource): number {
    return [...this.watchers].filter((w) => w.resource === resource).length;
  }

  private notify(resource: Resource, type: string, obj: Obj): void {
    for (const w of this.watchers) {
      if (w.resource !== resource || w.namespace !== obj.metadata.namespace) continue;
      if (w.name !== undefined && w.name !== obj.metadata.name) continue;
      w.res.write(`${JSON.stringify({ type, object: obj })}\n`);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    this.requests.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
    this.lastHeaders = req.headers;
    const send = (code: number, body: object): void => {
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (this.throttled > 0) {
      this.throttled--;
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify(status(429, 'TooManyRequests', 'storage is (re)initializing')));
      return;
    }
    const m = ROUTE.exec(url.pathname);
    if (!m)
      return send(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    const [, ns, resource, name, sub] = m as unknown as [
      string,
      string | undefined,
      Resource,
      string | undefined,
      string | undefined,
    ];
    const method = req.method ?? 'GET';
    if (this.forbid?.(method, url.pathname)) {
      const verb =
        method === 'PATCH'
          ? 'patch'
          : name
            ? 'get'
            : url.searchParams.get('watch')
              ? 'watch'
              : 'list';
      const where = ns ? `in the namespace "${ns}"` : 'at the cluster scope';
      const group =
        resource === 'rollouts' || resource === 'analysisruns'
          ? 'stepwise.dev'
          : resource === 'pods'
            ? ''
            : 'apps';
      const what = `${resource}${sub ? '/status' : ''}`;
      return send(
        403,
        status(
          403,
          'Forbidden',
          `${resource}.${group} "${name ?? ''}" is forbidden: User "${this.user}" cannot ${verb} resource "${what}" in API group "${group}" ${where}`,
        ),
      );
    }
    if (method === 'PATCH' && name && ns) {
      let raw = '';
      for await (const chunk of req) raw += String(chunk);
      const parsed = JSON.parse(raw) as unknown;
      const ops = Array.isArray(parsed) ? (parsed as JsonPatchOp[]) : undefined;
      const body = (ops ? {} : parsed) as Record<string, unknown> & {
        metadata?: { resourceVersion?: string };
      };
      this.patches.push({
        namespace: ns,
        name,
        subresource: sub ? 'status' : undefined,
        contentType: req.headers['content-type'],
        fieldManager: url.searchParams.get('fieldManager'),
        body: ops ? (ops as unknown as Record<string, unknown>) : body,
      });
      const current = this.get(resource, ns, name);
      if (!current)
        return send(
          404,
          status(404, 'NotFound', `${resource} "${name}" not found`, { name, kind: resource }),
        );
      const want = ops
        ? (ops.find((o) => o.path === '/metadata/resourceVersion')?.value as string | undefined)
        : body.metadata?.resourceVersion;
      if (this.conflicts > 0 || (want && want !== current.metadata.resourceVersion)) {
        if (this.conflicts > 0) this.conflicts--;
        return send(
          409,
          status(
            409,
            'Conflict',
            `Operation cannot be fulfilled on ${resource} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
          ),
        );
      }
      if (sub) {
        const next = mergePatch(current, { status: body['status'] }) as Obj;
        return send(200, this.put(resource, next));
      }
      let next: Obj;
      try {
        next = (ops ? jsonPatch(current, ops) : mergePatch(current, body)) as Obj;
      } catch (err) {
        return send(422, status(422, 'Invalid', `the request is invalid: ${String(err)}`));
      }
      // A spec change is a new generation, as the API server counts it.
      if (JSON.stringify(next['spec']) !== JSON.stringify(current['spec'])) {
        const generation = Number(current.metadata['generation'] ?? 1);
        next.metadata['generation'] = generation + 1;
      }
      return send(200, this.put(resource, next));
    }
    if (method !== 'GET') return send(405, status(405, 'MethodNotAllowed', 'method not allowed'));
    if (name) {
      const obj = ns ? this.get(resource, ns, name) : undefined;
      if (!obj)
        return send(
          404,
          status(404, 'NotFound', `${resource}.stepwise.dev "${name}" not found`, {
            name,
            kind: resource,
          }),
        );
      return send(200, obj);
    }
    const field = url.searchParams.get('fieldSelector');
    const only = field?.startsWith('metadata.name=')
      ? field.slice('metadata.name='.length)
      : undefined;
    if (url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      const w: Watcher = { resource, namespace: ns ?? '', name: only, res };
      this.watchers.add(w);
      req.on('close', () => this.watchers.delete(w));
      return;
    }
    const items = [...this.objects.entries()]
      .filter(([k]) => k.startsWith(`${resource}/${ns ? `${ns}/` : ''}`))
      .map(([, o]) => o)
      .filter((o) => only === undefined || o.metadata.name === only);
    return send(200, {
      kind: 'List',
      apiVersion: 'v1',
      metadata: { resourceVersion: String(this.rv) },
      items,
    });
  }
}
