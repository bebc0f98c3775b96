// The dashboard in a real browser (Debian's Chromium, headless, through playwright-core) against
// the real control plane and a real controller: `kubectl stepwise dashboard -A` lists Rollouts
// of three namespaces, a template change reaches the open page within 1 s, Promote on the page
// moves the Rollout to its next step, Set image / Restart / Undo ask for their arguments and
// write what the plugin writes, Approve (with a comment) records the viewer's approval and the
// Rollout goes on; an analysis chart draws what the real Prometheus returned; a user who may only
// read sees the page and gets
// "forbidden" on Promote with nothing written; no token, a wrong token and a forged cross-site
// POST are refused; markup and terminal escapes in an Event show as text. Screenshots of the
// list and of a canary mid-flight go to .stepwise/screenshots/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { AnalysisRun } from '../../src/api/analysis.ts';
import { INSTANCE_ID_LABEL } from '../../src/api/index.ts';
import type { Rollout } from '../../src/api/rollout.ts';
import { launchChromium } from '../cluster/chromium.ts';
import { startPrometheus, type RunningPrometheus } from '../prometheus/server.ts';
import { kubeHttp, testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { startController, type ControllerProcess } from './support/controller.ts';
import { screenshot, startDashboard, type RunningDashboard } from './support/dashboard.ts';
import {
  createAnalysisRun,
  createRollout,
  getRollout,
  installCrds,
  phase,
  rolloutBody,
  setImage,
  waitFor,
  waitForRollout,
} from './support/rollouts.ts';

const http = kubeHttp();
const STEPS = {
  canary: { steps: [{ setWeight: 25 }, { pause: {} }, { setWeight: 50 }, { pause: {} }] },
};
const VIEWER = 'dashboard-viewer';
/** The local cluster's admin client certificate's user (test/cluster/pki.ts). */
const ADMIN = 'stepwise-admin';

let controller: ControllerProcess;
let dashboard: RunningDashboard;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let prometheus: RunningPrometheus;
// At the top level: namespaces made in a hook would go at the end of the first test.
const ns = await Promise.all(['dash-a', 'dash-b', 'dash-c'].map((p) => testNamespace(p)));

const pausedAt = (step: number) => phase('Paused', (r) => r.status?.currentStepIndex === step);
const rowOf = (p: Page, key: string) => p.locator(`tr[data-key="${key}"]`);

/** Signs in with the printed address; the page lands on the list. */
async function signedIn(c: BrowserContext, d: RunningDashboard): Promise<Page> {
  const p = await c.newPage();
  await p.goto(d.url);
  await p.locator('#live', { hasText: 'live' }).waitFor();
  return p;
}

/** Opens the view of Rollout `namespace/name` and waits until it is drawn: the hash route
 *  changes without a page load, and until then the page still shows the previous view's
 *  buttons (a click or a probe on one of those would act on the wrong Rollout, or be lost). */
async function openRollout(p: Page, origin: string, namespace: string, name: string) {
  await p.goto(`${origin}/#/r/${namespace}/${name}`);
  await p.locator('h1', { hasText: `${namespace} / ${name}` }).waitFor();
}

/** Clicks an action on the Rollout view, fills its inputs, confirms it, and returns the answer
 *  shown. */
async function act(p: Page, action: string, fillIn?: () => Promise<void>): Promise<string> {
  // A live update redraws the action bar; one that lands between mousedown and mouseup splits
  // the click across two buttons, which is no click. Press again until the dialog opens.
  for (let attempt = 1; ; attempt++) {
    await p.locator(`button[data-action="${action}"]`).click();
    const opened = await p
      .locator('dialog[open]')
      .waitFor({ timeout: 5_000 })
      .then(() => true)
      .catch((err: unknown) => {
        if (attempt === 3) throw err;
        return false;
      });
    if (opened) break;
  }
  await fillIn?.();
  await p.locator('dialog button[data-confirm="yes"]').click();
  const result = p.locator('p.result');
  await result.filter({ hasNotText: /…$/ }).filter({ hasText: /\S/ }).waitFor();
  return (await result.textContent()) ?? '';
}

before(async () => {
  await installCrds();
  prometheus = await startPrometheus();
  // Approvals are judged without the identity policy here: who may record one is
  // approvals*.test.ts's subject; this file checks that the page records the viewer's.
  controller = await startController({ args: ['--trust-approvals-without-identity-policy'] });
  for (const n of ns) await createRollout(n, rolloutBody('web', { strategy: STEPS }));
  for (const n of ns) await waitForRollout(n, 'web', 'Healthy', phase('Healthy'));
  [dashboard, browser] = await Promise.all([startDashboard(['-A']), launchChromium()]);
  context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const started = Date.now();
  page = await signedIn(context, dashboard);
  console.log(`# sign-in to a live list page: ${Date.now() - started} ms`);
});

after(async () => {
  await browser?.close();
  await dashboard?.stop();
  await controller?.kill();
  await prometheus?.stop();
});

describe('dashboard', () => {
  it('lists the Rollouts of three namespaces, with counts per phase', async () => {
    for (const n of ns) await rowOf(page, `${n}/web`).waitFor();
    assert.match((await page.locator('p.counts').textContent()) ?? '', /Healthy \d+/);
    await page.locator('#f-search').fill('dash-');
    await screenshot(page, 'dashboard-list');
    await page.locator('#f-search').fill('');
  });

  it('shows a template change on the open page within 1 s', async () => {
    const started = Date.now();
    await setImage(ns[0]!, 'web', 'app:2');
    await rowOf(page, `${ns[0]}/web`)
      .locator('td.images', { hasText: 'app:2' })
      .waitFor({ timeout: 5000 });
    const elapsed = Date.now() - started;
    console.log(`# template change → page: ${elapsed} ms`);
    assert.ok(elapsed <= 1000, `${elapsed} ms`);
  });

  it('promotes from the page: the Rollout moves to its next step', async () => {
    await waitForRollout(ns[0]!, 'web', 'paused at step 1', pausedAt(1));
    await openRollout(page, dashboard.origin, ns[0]!, 'web');
    await page.locator('li.step.current', { hasText: 'pause' }).waitFor();
    await page.locator('button[data-action="promote"]:not(.off)').waitFor();
    await screenshot(page, 'dashboard-canary-paused');
    assert.equal(await act(page, 'promote'), "rollout 'web' promoted");
    await waitForRollout(ns[0]!, 'web', 'paused at step 3', pausedAt(3));
    await page.locator('li.step.current', { hasText: /^.*4\. pause/ }).waitFor();
    assert.equal(await page.locator('[data-weight="desired"]').textContent(), '50%');
    await screenshot(page, 'dashboard-canary-mid-flight');
  });

  it('sets an image, restarts and undoes from the page, each asking for what the plugin command takes', async () => {
    await createRollout(ns[2]!, rolloutBody('api', { strategy: STEPS }));
    const first = await waitForRollout(ns[2]!, 'api', 'Healthy', phase('Healthy'));
    const image = first.spec.template?.spec?.containers[0]?.image;
    await openRollout(page, dashboard.origin, ns[2]!, 'api');
    await page.locator('button[data-action="set-image"]:not(.off)').waitFor();

    const set = await act(page, 'set-image', async () => {
      await page.locator('#input-container').selectOption('*');
      await page.locator('#input-image').fill('app:3');
    });
    assert.equal(set, "rollout 'api' image updated");
    const paused = await waitForRollout(ns[2]!, 'api', 'the new image at step 1', pausedAt(1));
    assert.equal(paused.spec.template?.spec?.containers[0]?.image, 'app:3');

    assert.match(await act(page, 'restart'), /restarts: pods created before/);
    assert.match((await getRollout(ns[2]!, 'api')).spec.restartAt ?? '', /^\d{4}-.*Z$/);

    assert.match(await act(page, 'undo'), /revision 1/);
    const back = await waitForRollout(ns[2]!, 'api', 'back to the first image', phase('Healthy'));
    assert.equal(back.spec.template?.spec?.containers[0]?.image, image);
    assert.equal(back.status?.stableRS, first.status?.stableRS);
  });

  it('a redraw that leaves the offers as they were keeps the buttons themselves (a click is never split across it)', async () => {
    // A Rollout nothing writes to (Healthy since before()): 'api' is still being restarted by
    // the test before, and its phase changing changes the offers, which rightly redraws the bar.
    const ro = await getRollout(ns[2]!, 'web');
    await openRollout(page, dashboard.origin, ns[2]!, 'web');
    const button = page.locator('button[data-action="restart"]');
    await button.waitFor();
    await button.evaluate((b: { setAttribute(name: string, value: string): void }) => {
      b.setAttribute('data-probe', 'kept');
    });
    // An Event for the Rollout redraws the view (its Events section) and changes no offer.
    await http.json('POST', `/api/v1/namespaces/${ns[2]}/events`, {
      metadata: { generateName: 'web-probe-' },
      involvedObject: {
        apiVersion: 'stepwise.dev/v1alpha1',
        kind: 'Rollout',
        name: 'web',
        namespace: ns[2],
        uid: ro.metadata.uid,
      },
      reason: 'RedrawProbe',
      message: 'a redraw probe',
      type: 'Normal',
      firstTimestamp: new Date().toISOString(),
      lastTimestamp: new Date().toISOString(),
      count: 1,
      source: { component: 'stepwise-tests' },
    });
    await page.locator('text=a redraw probe').waitFor();
    assert.equal(await button.getAttribute('data-probe'), 'kept', 'the same button node');
  });

  it('approves from the page as the viewer, with a comment: the Rollout goes on', async () => {
    const n = ns[1]!;
    const approval = { approvers: { users: [ADMIN] } };
    const steps = [{ setWeight: 25 }, { approval }, { setWeight: 50 }];
    await createRollout(n, rolloutBody('gated', { strategy: { canary: { steps } } }));
    await waitForRollout(n, 'gated', 'Healthy', phase('Healthy'));
    await setImage(n, 'gated', 'app:2');
    const awaiting = phase('Paused', (r) => r.status?.message === 'AwaitingApproval');
    await waitForRollout(n, 'gated', 'awaiting approval at step 2', awaiting);

    // "Awaiting my approval" keeps the Rollout that asks the viewer and drops the others.
    await page.goto(`${dashboard.origin}/#/`);
    const mine = page.locator('#f-awaiting-me');
    await mine.check();
    await rowOf(page, `${n}/gated`).waitFor();
    await rowOf(page, `${ns[0]}/web`).waitFor({ state: 'detached' });
    await mine.uncheck();

    await openRollout(page, dashboard.origin, n, 'gated');
    await page.locator('button[data-action="approve"]:not(.off)').waitFor();
    const answer = await act(page, 'approve', () =>
      page.locator('#input-comment').fill('graphs flat'),
    );
    assert.match(answer, new RegExp(`approval of rollout 'gated' step 2 recorded as ${ADMIN}`));
    const done = await waitForRollout(n, 'gated', 'Healthy after the approval', phase('Healthy'));
    assert.deepEqual(
      done.status?.approvals?.map((r) => [r.by, r.decision, r.comment]),
      [[ADMIN, 'Approve', 'graphs flat']],
    );
    await page.locator('section li', { hasText: ADMIN }).first().waitFor();
  });

  it('refuses without the token and with a wrong one', async () => {
    const fresh = await browser.newContext();
    const p = await fresh.newPage();
    const none = await p.goto(dashboard.origin);
    assert.equal(none?.status(), 401);
    assert.match((await p.textContent('body')) ?? '', /Sign-in needed/);
    const wrong = await p.goto(`${dashboard.origin}/?token=${'x'.repeat(32)}`);
    assert.equal(wrong?.status(), 403);
    assert.equal((await fresh.cookies()).length, 0);
    await fresh.close();
  });

  it('refuses a forged cross-site POST, even with the session cookie', async () => {
    const [cookie] = await context.cookies();
    assert.ok(cookie?.httpOnly && cookie.sameSite === 'Strict');
    const before = await getRollout(ns[0]!, 'web');
    const body = JSON.stringify({ namespace: ns[0], name: 'web', action: 'abort' });
    const headers = {
      cookie: `${cookie.name}=${cookie.value}`,
      'content-type': 'application/json',
    };
    for (const extra of [
      { origin: dashboard.origin },
      { origin: 'http://evil.example', 'x-csrf-token': 'guess' },
    ]) {
      const res = await fetch(`${dashboard.origin}/api/action`, {
        method: 'POST',
        headers: { ...headers, ...extra },
        body,
      });
      assert.equal(res.status, 403);
    }
    const afterwards = await getRollout(ns[0]!, 'web');
    assert.equal(afterwards.status?.abort, before.status?.abort);
    assert.notEqual(afterwards.status?.abort, true);
  });

  it('shows markup and terminal escapes in an Event as text', async () => {
    const ro = await getRollout(ns[2]!, 'web');
    const message =
      '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">\x1b[31mred';
    await http.json('POST', `/api/v1/namespaces/${ns[2]}/events`, {
      metadata: { generateName: 'web.' },
      involvedObject: {
        kind: 'Rollout',
        apiVersion: 'stepwise.dev/v1alpha1',
        name: 'web',
        namespace: ns[2],
        uid: ro.metadata.uid,
      },
      reason: 'Hostile',
      message,
      type: 'Warning',
      lastTimestamp: new Date().toISOString(),
    });
    await openRollout(page, dashboard.origin, ns[2]!, 'web');
    const item = page.locator('ul.events li', { hasText: 'Hostile' });
    await item.waitFor();
    assert.equal(
      await item.textContent().then((t) => t?.replace(/^.*?Hostile: /, '')),
      message.replace('\x1b', '\\x1b'),
    );
    assert.equal(await page.locator('main script, main img').count(), 0);
    assert.equal(await page.evaluate('window.pwned'), undefined);
  });
});

describe('analysis', () => {
  it('charts the values Prometheus returned, failed points marked, the threshold drawn', async () => {
    const n = ns[2]!;
    // A Rollout no controller runs (another instance's label): its run is the only actor here.
    const ro = await http.json<Rollout>(
      'POST',
      `/apis/stepwise.dev/v1alpha1/namespaces/${n}/rollouts`,
      {
        ...rolloutBody('charted', { strategy: STEPS }),
        metadata: { name: 'charted', labels: { [INSTANCE_ID_LABEL]: 'e2e-nobody' } },
      },
    );
    const metric = (name: string, count: number, query: string) => ({
      name,
      interval: '1s',
      count,
      failureLimit: count, // failures are what the chart marks: they must not end the run
      successCondition: 'result[0] >= 0.95', // an instant vector: one value per series
      provider: { prometheus: { address: prometheus.url, query } },
    });
    const owner = {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'Rollout',
      name: 'charted',
      uid: ro.metadata.uid!,
    };
    await createAnalysisRun(n, {
      apiVersion: 'stepwise.dev/v1alpha1',
      kind: 'AnalysisRun',
      metadata: { name: 'charted-1', ownerReferences: [owner] },
      spec: { metrics: [metric('good', 3, 'vector(0.97)'), metric('bad', 2, 'vector(0.5)')] },
    });
    await waitFor<AnalysisRun>(
      'AnalysisRun charted-1 measured',
      `/apis/stepwise.dev/v1alpha1/namespaces/${n}/analysisruns`,
      'charted-1',
      (r) => {
        const count = (m: string) =>
          r.status?.metricResults?.find((x) => x.name === m)?.measurements?.length ?? 0;
        return count('good') === 3 && count('bad') === 2;
      },
    );
    await openRollout(page, dashboard.origin, n, 'charted');
    const good = page.locator('figure[data-metric="good"]');
    const bad = page.locator('figure[data-metric="bad"]');
    await good.locator('dd.last', { hasText: '0.97' }).waitFor();
    await bad.locator('dd.last', { hasText: '0.5' }).waitFor();
    assert.equal(await good.locator('circle.point').count(), 3);
    assert.equal(await good.locator('circle.point.failed').count(), 0);
    assert.equal(await bad.locator('circle.point.failed').count(), 2);
    assert.equal(await good.locator('line.threshold.success').count(), 1);
    assert.match(
      (await good.locator('svg').getAttribute('aria-label')) ?? '',
      /3 values charted, last \[0\.97\]/, // as Prometheus answered: one series
    );
    await screenshot(page, 'dashboard-analysis');
  });
});

describe('a user who may only read', () => {
  let viewer: RunningDashboard;
  let vPage: Page;
  let vContext: BrowserContext;

  before(async () => {
    const role = await http.json<{ metadata: { name: string } }>(
      'POST',
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
      {
        metadata: { generateName: 'dashboard-read-' },
        rules: [
          {
            apiGroups: ['stepwise.dev'],
            resources: ['rollouts', 'analysisruns'],
            verbs: ['get', 'list', 'watch'],
          },
          { apiGroups: ['apps'], resources: ['replicasets'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: [''], resources: ['pods', 'events'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    );
    await http.json('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { generateName: 'dashboard-read-' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: role.metadata.name,
      },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: VIEWER }],
    });
    await setImage(ns[1]!, 'web', 'app:2');
    await waitForRollout(ns[1]!, 'web', 'paused at step 1', pausedAt(1));
    viewer = await startDashboard(['-A'], { KUBECONFIG: await userKubeconfig(VIEWER) });
    vContext = await browser.newContext();
    vPage = await signedIn(vContext, viewer);
  });
  after(async () => {
    await vContext?.close();
    await viewer?.stop();
  });

  it('sees the page, and gets "forbidden" on Promote with nothing written', async () => {
    for (const n of ns) await rowOf(vPage, `${n}/web`).waitFor();
    const before: Rollout = await getRollout(ns[1]!, 'web');
    await openRollout(vPage, viewer.origin, ns[1]!, 'web');
    await vPage.locator('button[data-action="promote"]:not(.off)').waitFor();
    const answer = await act(vPage, 'promote');
    assert.match(answer, /^forbidden: user "dashboard-viewer" cannot patch rollouts\/status/);
    assert.equal(await vPage.locator('p.result.refused').count(), 1);
    const afterwards = await getRollout(ns[1]!, 'web');
    assert.equal(afterwards.status?.currentStepIndex, 1);
    assert.deepEqual(afterwards.status?.pauseConditions, before.status?.pauseConditions);
    assert.ok(!afterwards.metadata.managedFields?.some((m) => m.manager === 'kubectl-stepwise'));
  });
});
