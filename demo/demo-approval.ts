/**
 * The demo's approval act: a canary that waits for a person. The controller sends the approval
 * request to a webhook (here a small receiver in this process, standing in for a chat bridge or
 * an incident tool) with two signed links; the demo prints the Approve link, fetches its
 * confirmation page (a GET never acts: chat apps and mail scanners open every link), approves
 * with a POST, and the rollout moves on, with who approved, how and when in its status.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CanaryStep } from '../src/api/index.ts';
import { freeLoopbackPorts } from '../test/cluster/ports.ts';
import { bold, dim, expect, onCleanup, run, say, section, seconds } from './demo-kit.ts';
import { Timeline } from './demo-timeline.ts';
import { capture } from './demo-kit.ts';

const NAME = 'checkout';

interface Received {
  kind: string;
  message: string;
  approval?: { approveUrl?: string | null } | null;
}

export interface ApprovalStage {
  /** Flags for the controller: the external port, its public URL, the notification keys. */
  readonly controllerArgs: readonly string[];
  /** Resolves with the first notification of `kind` about `rollout`. */
  notification(kind: string): Promise<Received>;
}

/** Before the controller starts: a webhook receiver, a signing key, an external port. */
export async function startApprovalStage(root: string): Promise<ApprovalStage> {
  const received: Received[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Received);
        receiver.emit('notification');
      } catch {
        // not ours
      }
      res.writeHead(204).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  // The notification Secret's keys, as files (what a mounted Secret looks like).
  const dir = join(root, '.stepwise', 'demo-notifications');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, 'approval-signing-key'), randomBytes(32), { mode: 0o600 });
  await writeFile(join(dir, 'webhook-demo-url'), hook, { mode: 0o600 });
  const { external } = await freeLoopbackPorts(['external']);
  onCleanup(async () => {
    receiver.close();
    receiver.closeAllConnections();
    await rm(dir, { recursive: true, force: true });
  });
  return {
    controllerArgs: [
      `--external-bind-address=127.0.0.1:${external}`,
      `--public-url=http://127.0.0.1:${external}`,
      `--notifications-dir=${dir}`,
    ],
    async notification(kind) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const found = received.find((n) => n.kind === kind);
        if (found) return found;
        expect(Date.now() < deadline, `no "${kind}" notification within 60 s`);
        await Promise.race([
          once(receiver, 'notification'),
          new Promise((r) => setTimeout(r, 1_000)),
        ]);
      }
    },
  };
}

export async function approvalAct(ns: string, stage: ApprovalStage, act: string): Promise<void> {
  const inNs = (...args: string[]): Promise<number> => run('kubectl', ['-n', ns, ...args]);
  const stepwise = (...args: string[]): Promise<number> =>
    run('kubectl', ['stepwise', '-n', ns, ...args]);

  section(`${act} An approval step: a signed link, a confirmation page, a POST`);
  say(
    'deploy/examples/approval.yaml: Rollout checkout, whose second step waits for a person (10 min,',
    'then it aborts). Its annotations send the approval request to the webhook "demo" (a URL in',
    "the controller's notification Secret; here a receiver in this process):",
  );
  await inNs('apply', '-f', 'deploy/examples/approval.yaml');
  await stepwise('status', NAME, '--timeout', '60s');
  const steps = JSON.parse(
    (await capture('kubectl', [
      '-n',
      ns,
      'get',
      'swro',
      NAME,
      '-o',
      'jsonpath={.spec.strategy.canary.steps}',
    ])) || '[]',
  ) as CanaryStep[];
  const timeline = new Timeline(ns, NAME, steps);
  const image = JSON.stringify([
    {
      op: 'replace',
      path: '/spec/template/spec/containers/0/image',
      value: 'registry.example/checkout:2.0',
    },
  ]);
  await timeline.follow(
    'waiting for approval',
    (s) => s.phase === 'Paused' && s.message === 'AwaitingApproval',
    () => inNs('patch', 'swro', NAME, '--type=json', '-p', image),
  );
  const asked = await stage.notification('awaiting-approval');
  const link = asked.approval?.approveUrl ?? '';
  expect(link !== '', 'the approval request carried no link');
  say(
    'The webhook received the request. Its Approve link (HMAC-signed, bound to this Rollout,',
    'revision and step, valid until the step times out, usable once):',
  );
  say(bold(link));
  await stepwise('get', 'rollout', NAME);
  say('Opening the link (a GET) shows what is asked and changes nothing:');
  const page = await fetch(link);
  const text = plain(await page.text())
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && l !== 'Comment (optional)');
  say(...text.map((l) => dim(`  ${l}`)));
  say('Pressing Approve sends the form (a POST), with a comment:');
  let posted = Date.now();
  await timeline.follow(
    'Healthy rollout',
    (s) => s.phase === 'Healthy',
    async () => {
      posted = Date.now();
      const res = await fetch(link, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'comment=dashboard+looks+fine',
      });
      say(
        `HTTP ${res.status}: ${(await res.text())
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim()
          .slice(-120)}`,
      );
      return res.status === 200 ? 0 : 1;
    },
    60_000,
  );
  say(`Healthy ${seconds(Date.now() - posted)} after the POST. The decision is on record:`);
  await stepwise('get', 'rollout', NAME);
  const again = await fetch(link, { method: 'POST' });
  say(`The same link a second time: HTTP ${again.status} (single use).`);
  expect(again.status === 409, `a used link answered ${again.status}`);
}

/** The page's body as lines of text (a terminal's view of the HTML). */
function plain(html: string): string {
  return html
    .replace(/<head>[\s\S]*<\/head>/, '')
    .replace(/<(dt|h1|p|label|button)[^>]*>/g, '\n')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/[ \t]+/g, ' ');
}
