// The dashboard served in the cluster (stepwise-dashboard), run as a local process on 127.0.0.1
// with a ServiceAccount token of its own and the RBAC the Helm chart ships, driven from a real
// browser (Debian's Chromium, headless) against the real control plane and controller. No
// token → the sign-in page; a bad token → refused; a person who may only read sees their
// namespace (not another) and gets "forbidden" on Promote with nothing written; a person who may
// promote moves the Rollout, written with their own token (the dashboard's ServiceAccount could
// not have); a forged cross-site POST is refused; proxy headers count only from the trusted
// address, and a proxied person's approval is sent impersonating them and their group and
// recorded with their name. Screenshots of the sign-in page and the signed-in list go to
// .stepwise/screenshots/.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { INSTANCE_ID_LABEL } from '../../src/api/index.ts';
import { launchChromium } from '../cluster/chromium.ts';
import { kubeHttp, testNamespace } from '../cluster/testing.ts';
import { startController, type ControllerProcess } from './support/controller.ts';
import { screenshot } from './support/dashboard.ts';
import {
  applyShippedRbac,
  serviceAccountToken,
  startClusterDashboard,
  tokenKubeconfig,
  type ClusterDashboardProcess,
} from './support/dashboard-cluster.ts';
import {
  createRollout,
  getRollout,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitForRollout,
} from './support/rollouts.ts';

const http = kubeHttp();
const STEPS = {
  canary: {
    steps: [
      { setWeight: 25 },
      { pause: {} },
      { setWeight: 50 },
      { approval: { message: 'approve from the dashboard' } },
      { setWeight: 75 },
      { pause: {} },
    ],
  },
};
const PROXY_GROUP = 'dashboard-proxied-approvers';
// At the top level: namespaces made in a hook would go at the end of the first test.
const [ns, other] = await Promise.all([testNamespace('dash-cl'), testNamespace('dash-cl-other')]);
const reader = `system:serviceaccount:${ns}:reader`;

let controller: ControllerProcess;
let dashboard: ClusterDashboardProcess;
let browser: Browser;
const tokens: Record<'reader' | 'operator', string> = { reader: '', operator: '' };
const clusterNames: string[] = [];

const pausedAt = (step: number) => phase('Paused', (r) => r.status?.currentStepIndex === step);
const rowOf = (p: Page, key: string) => p.locator(`tr[data-key="${key}"]`);

async function clusterRole(name: string, rules: object[]): Promise<void> {
  await http.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name },
    rules,
  });
  clusterNames.push(name);
}

async function bindIn(namespace: string, role: string, subject: object): Promise<void> {
  await http.json(
    'POST',
    `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`,
    {
      metadata: { generateName: 'dash-cl-' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
      subjects: [subject],
    },
  );
}

/** Whether Kubernetes lets `user` (no groups) do this in the test namespace (a
 *  SubjectAccessReview, asked as admin). */
async function may(
  user: string,
  verb: string,
  resource: string,
  subresource?: string,
): Promise<boolean> {
  const review = await http.json<{ status: { allowed: boolean } }>(
    'POST',
    '/apis/authorization.k8s.io/v1/subjectaccessreviews',
    {
      spec: {
        user,
        resourceAttributes: { namespace: ns, verb, group: 'stepwise.dev', resource, subresource },
      },
    },
  );
  return review.status.allowed;
}

/** The pause step the Rollout waits at (1, 3 or 5), once the controller has settled there. */
async function pausedStep(): Promise<number> {
  const ro = await waitForRollout(ns, 'web', 'paused', phase('Paused'));
  return ro.status?.currentStepIndex ?? -1;
}

/** Signs in on the sign-in page with `token`; the page lands on the live list. */
async function signIn(c: BrowserContext, token: string): Promise<Page> {
  const p = await c.newPage();
  await p.goto(dashboard.origin);
  await p.locator('#token').fill(token);
  await p.locator('button[type="submit"]').click();
  await p.locator('#live', { hasText: 'live' }).waitFor();
  return p;
}

async function act(p: Page, action: string): Promise<string> {
  await p.locator(`button[data-action="${action}"]`).click();
  await p.locator('dialog button[data-confirm="yes"]').click();
  const result = p.locator('p.result');
  await result.filter({ hasNotText: /…$/ }).filter({ hasText: /\S/ }).waitFor();
  return (await result.textContent()) ?? '';
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request as a proxy in front of the dashboard would send it, from `from` (127.0.0.0/8 is
 *  all loopback on Linux: the connection's source address is what the dashboard checks). */
function fromAddress(
  from: string,
  path: string,
  o: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: dashboard.port,
        localAddress: from,
        path,
        method: o.method ?? 'GET',
        headers: { host: `127.0.0.1:${dashboard.port}`, ...o.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

before(async () => {
  // The browser and the controller start while the rights are set up.
  const browserStarting = launchChromium();
  await installCrds();
  const controllerStarting = startController({
    // Approvals are taken without the identity policy (a cluster-wide object other files
    // install); the recorded name is still whom the API server saw (SelfSubjectReview).
    args: ['--leader-elect=false', '--trust-approvals-without-identity-policy'],
  });
  await createRollout(ns, rolloutBody('web', { strategy: STEPS }));
  // Somebody else's namespace: a Rollout no controller runs, which nobody here may list.
  await http.json('POST', `/apis/stepwise.dev/v1alpha1/namespaces/${other}/rollouts`, {
    ...rolloutBody('hidden', { strategy: STEPS }),
    metadata: { name: 'hidden', labels: { [INSTANCE_ID_LABEL]: 'e2e-nobody' } },
  });
  // The Rollout goes to its first pause while the rights are set up.
  const pausing = (async () => {
    await waitForRollout(ns, 'web', 'Healthy', phase('Healthy'));
    await setImage(ns, 'web', 'app:2');
    await waitForRollout(ns, 'web', 'paused at step 1', pausedAt(1));
  })();
  // Awaited below, where a failure is reported; until then none is an unhandled rejection.
  for (const started of [browserStarting, controllerStarting, pausing]) {
    started.catch(() => undefined);
  }
  const read = `dash-cl-read-${ns}`;
  const operate = `dash-cl-operate-${ns}`;
  const approve = `dash-cl-approve-${ns}`;
  await clusterRole(read, [
    {
      apiGroups: ['stepwise.dev'],
      resources: ['rollouts', 'analysisruns'],
      verbs: ['get', 'list', 'watch'],
    },
    { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] },
  ]);
  await clusterRole(operate, [
    { apiGroups: ['stepwise.dev'], resources: ['rollouts/status'], verbs: ['patch'] },
  ]);
  await clusterRole(approve, [
    {
      apiGroups: ['stepwise.dev'],
      resources: ['rolloutapprovals'],
      verbs: ['create', 'get', 'list', 'watch'],
    },
  ]);
  const [own, readerToken, operatorToken] = await Promise.all([
    serviceAccountToken(ns, 'stepwise-dashboard'),
    serviceAccountToken(ns, 'reader'),
    serviceAccountToken(ns, 'operator'),
  ]);
  tokens.reader = readerToken;
  tokens.operator = operatorToken;
  clusterNames.push(...(await applyShippedRbac(ns, 'stepwise-dashboard')));
  const sa = (name: string) => ({ kind: 'ServiceAccount', name, namespace: ns });
  const group = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: PROXY_GROUP };
  for (const subject of [sa('reader'), sa('operator'), group]) await bindIn(ns, read, subject);
  await bindIn(ns, operate, sa('operator'));
  await bindIn(ns, approve, group);

  const kubeconfig = await tokenKubeconfig(`dashboard-${ns}`, own);
  controller = await controllerStarting;
  [dashboard, browser] = await Promise.all([
    startClusterDashboard(kubeconfig, ['--trusted-proxy-cidr=127.0.0.2/32']),
    browserStarting,
  ]);
  await pausing;
});

after(async () => {
  await browser?.close();
  await dashboard?.stop();
  await controller?.kill();
  for (const name of clusterNames) {
    await http.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/${name}`);
    await http.request('DELETE', `/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`);
  }
});

describe('dashboard in the cluster: sign-in', () => {
  it('shows the sign-in page without a token, and refuses a bad one', async () => {
    const c = await browser.newContext();
    const p = await c.newPage();
    const none = await p.goto(dashboard.origin);
    assert.equal(none?.status(), 401);
    assert.equal(await p.locator('h1').textContent(), 'Sign in');
    await screenshot(p, 'dashboard-cluster-sign-in');
    const api = await p.request.get(`${dashboard.origin}/api/stream`);
    assert.equal(api.status(), 401);

    await p.locator('#token').fill('not-a-kubernetes-token');
    const [answer] = await Promise.all([
      p.waitForResponse((r) => r.url().endsWith('/sign-in') && r.request().method() === 'POST'),
      p.locator('button[type="submit"]').click(),
    ]);
    assert.equal(answer.status(), 403);
    assert.match(
      (await p.locator('p.result.refused').textContent()) ?? '',
      /^Refused: Kubernetes did not accept this token/,
    );
    assert.deepEqual(await c.cookies(), []);
    await c.close();
  });
});

describe('dashboard in the cluster: a person who may only read', () => {
  it('sees their namespace only, and gets "forbidden" on Promote with nothing written', async () => {
    const c = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const p = await signIn(c, tokens.reader);
    const [cookie] = await c.cookies();
    assert.ok(
      cookie?.httpOnly && cookie.secure && cookie.sameSite === 'Strict',
      JSON.stringify(cookie),
    );
    await rowOf(p, `${ns}/web`).waitFor();
    assert.match(
      (await p.locator('header .who').textContent()) ?? '',
      new RegExp(`signed in as ${reader}`),
    );
    assert.equal(await rowOf(p, `${other}/hidden`).count(), 0);
    await screenshot(p, 'dashboard-cluster-list');

    const before = await getRollout(ns, 'web');
    await p.goto(`${dashboard.origin}/#/r/${ns}/web`);
    await p.locator('button[data-action="promote"]:not(.off)').waitFor();
    assert.equal(
      await act(p, 'promote'),
      `forbidden: user "${reader}" cannot patch rollouts/status in the namespace "${ns}" (nothing was written)`,
    );
    assert.equal(
      (await getRollout(ns, 'web')).metadata.resourceVersion,
      before.metadata.resourceVersion,
    );
    // Another namespace's Rollout, asked for by name: not shown.
    await p.goto(`${dashboard.origin}/#/r/${other}/hidden`);
    await p.getByText(`cannot list rollouts in the namespace "${other}"`).waitFor();
    await c.close();
  });
});

describe('dashboard in the cluster: a person who may promote', () => {
  let c: BrowserContext;
  let p: Page;
  before(async () => {
    c = await browser.newContext();
    p = await signIn(c, tokens.operator);
  });
  after(() => c.close());

  it('promotes: the Rollout moves, written with their token, not the dashboard’s rights', async () => {
    const dashboardUser = `system:serviceaccount:${ns}:stepwise-dashboard`;
    // The dashboard holds two credentials: its own, which may not make this write, and the
    // person's token. The write succeeding is the person's.
    assert.equal(
      await may(dashboardUser, 'patch', 'rollouts', 'status'),
      false,
      'the dashboard itself may not write',
    );
    assert.equal(
      await may(`system:serviceaccount:${ns}:operator`, 'patch', 'rollouts', 'status'),
      true,
    );
    await p.goto(`${dashboard.origin}/#/r/${ns}/web`);
    await p.locator('button[data-action="promote"]:not(.off)').waitFor();
    const step = await pausedStep();
    assert.equal(await act(p, 'promote'), "rollout 'web' promoted");
    await waitForRollout(ns, 'web', 'paused at the next pause', pausedAt(step + 2));
  });

  it('refuses a forged cross-site POST, even with the session cookie', async () => {
    const [cookie] = await c.cookies();
    assert.ok(cookie);
    const before = await getRollout(ns, 'web');
    const body = JSON.stringify({ namespace: ns, name: 'web', action: 'abort' });
    const base = { cookie: `${cookie.name}=${cookie.value}`, 'content-type': 'application/json' };
    for (const extra of [
      { origin: dashboard.origin },
      { origin: 'http://evil.example', 'x-csrf-token': 'guess' },
      { origin: 'http://evil.example' },
    ]) {
      const res = await fetch(`${dashboard.origin}/api/action`, {
        method: 'POST',
        headers: { ...base, ...extra },
        body,
      });
      assert.equal(res.status, 403);
    }
    assert.equal(
      (await getRollout(ns, 'web')).metadata.resourceVersion,
      before.metadata.resourceVersion,
    );
  });

  it('signs out: the page goes back to sign-in and the old cookie no longer works', async () => {
    const [cookie] = await c.cookies();
    assert.ok(cookie);
    await p.locator('form.sign-out button').click();
    await p.locator('h1', { hasText: 'Sign in' }).waitFor();
    const res = await fetch(`${dashboard.origin}/api/stream`, {
      headers: { cookie: `${cookie.name}=${cookie.value}` },
    });
    assert.equal(res.status, 401);
  });
});

describe('dashboard in the cluster: an authenticating proxy', () => {
  const proxied = { 'x-remote-user': 'proxied-alice', 'x-remote-group': [PROXY_GROUP] };

  it('does not trust the proxy headers from an untrusted address', async () => {
    const spoofed = await fromAddress('127.0.0.1', '/', {
      headers: { ...proxied, 'x-remote-user': `system:serviceaccount:${ns}:operator` },
    });
    assert.equal(spoofed.status, 401);
    assert.match(spoofed.body, /<h1>Sign in<\/h1>/);
    assert.equal(spoofed.headers['set-cookie'], undefined);
  });

  it('from the trusted address: the person signed in, and their approval sent impersonating them and their group, recorded with their name', async () => {
    const alone = await may('proxied-alice', 'create', 'rolloutapprovals');
    assert.equal(alone, false, 'only their group may approve');
    const waiting = await waitForRollout(
      ns,
      'web',
      'awaiting approval',
      phase('Paused', (r) => r.status?.message === 'AwaitingApproval'),
    );
    const step = waiting.status?.currentStepIndex ?? -1;
    const page = await fromAddress('127.0.0.2', '/', { headers: proxied });
    assert.equal(page.status, 200);
    assert.match(page.body, /signed in as proxied-alice/);
    const csrf = /name="stepwise-csrf" content="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const cookie = String(page.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '';
    const res = await fromAddress('127.0.0.2', '/api/action', {
      method: 'POST',
      headers: {
        ...proxied,
        cookie,
        origin: dashboard.origin,
        'x-csrf-token': csrf,
        'content-type': 'application/json',
      },
      body: JSON.stringify({
        namespace: ns,
        name: 'web',
        action: 'approve',
        inputs: { comment: 'through the proxy' },
      }),
    });
    // The name is the API server's answer to the impersonated request (SelfSubjectReview).
    assert.deepEqual(
      { status: res.status, body: JSON.parse(res.body) as unknown },
      {
        status: 200,
        body: {
          ok: true,
          message: `approval of rollout 'web' step ${step + 1} recorded as proxied-alice`,
        },
      },
    );
    const moved = await waitForRollout(ns, 'web', 'past the approval', pausedAt(step + 2));
    assert.deepEqual(
      moved.status?.approvals?.map((a) => [a.by, a.decision, a.comment]),
      [['proxied-alice', 'Approve', 'through the proxy']],
    );
  });
});
