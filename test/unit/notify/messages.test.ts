// Rendering: a Slack message for every kind, buttons and links for an approval, the resolved
// form, escaping of user text, and the webhook document (no tokens outside the URLs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  NOTIFICATION_KINDS,
  NotificationKind,
  escapeMrkdwn,
  slackMessage,
  slackResolvedMessage,
  webhookPayload,
  type Notification,
} from '../../../src/notify/index.ts';
import { awaiting, notification } from './support.ts';

interface Block {
  type: string;
  text?: { type: string; text: string };
  elements?: { type: string; action_id?: string; style?: string; value?: string; text?: unknown }[];
}
const blocksOf = (m: { blocks: unknown[] }) => m.blocks as Block[];

describe('Slack messages', () => {
  for (const kind of NOTIFICATION_KINDS) {
    it(`render ${kind}`, () => {
      const n = kind === NotificationKind.AwaitingApproval ? awaiting : notification(kind);
      const m = slackMessage(n);
      assert.match(m.text, /^shop\/checkout /);
      assert.ok(m.text.includes(n.message));
      const [first] = blocksOf(m);
      assert.equal(first?.type, 'section');
      assert.equal(first?.text?.type, 'mrkdwn');
      assert.match(first?.text?.text ?? '', /\*shop\/checkout\*/);
      assert.match(first?.text?.text ?? '', /revision `7c9d8b6f5`/);
      assert.equal(
        blocksOf(m).some((b) => b.type === 'actions'),
        kind === NotificationKind.AwaitingApproval,
        'buttons only when awaiting approval',
      );
    });
  }

  it('count steps from 1, as Argo does', () => {
    assert.match(
      slackMessage(notification(NotificationKind.StepCompleted)).text,
      /completed step 2\/5/,
    );
    assert.match(slackMessage(awaiting).text, /waiting for approval at step 3\/5/);
  });

  it('awaiting approval: Approve and Reject buttons carrying the tokens', () => {
    const actions = blocksOf(slackMessage(awaiting)).find((b) => b.type === 'actions');
    assert.deepEqual(
      actions?.elements?.map((e) => [e.type, e.action_id, e.style, e.value]),
      [
        ['button', 'stepwise_approve', 'primary', 'v1.approve.token'],
        ['button', 'stepwise_reject', 'danger', 'v1.reject.token'],
      ],
    );
  });

  it('awaiting approval: links, prompt, approvers with mentions, expiry', () => {
    const text = JSON.stringify(slackMessage(awaiting).blocks);
    assert.ok(text.includes('<https://stepwise.example.com/approve/v1.AAA.BBB|Approve>'));
    assert.ok(text.includes('<https://stepwise.example.com/reject/v1.CCC.DDD|Reject>'));
    assert.ok(text.includes('> Check the dashboard first'));
    assert.ok(text.includes('Approvers: <@U0123ABCD>, alice, group sre (1 approval needed)'));
    assert.ok(
      text.includes('<!date^1767324845^{date_short_pretty} at {time}|2026-01-02T03:34:05.000Z>'),
    );
  });

  it('awaiting approval without links has no link line', () => {
    const { approveUrl: _a, rejectUrl: _r, ...approval } = awaiting.approval ?? assert.fail();
    const m = slackMessage({ ...awaiting, approval });
    assert.ok(!JSON.stringify(m.blocks).includes('in the browser'));
  });

  it('escape &, < and > in user text so it cannot ping or link', () => {
    const n: Notification = {
      ...awaiting,
      message: 'a <!channel> & <https://evil.example|click>',
      approval: {
        ...(awaiting.approval ?? assert.fail()),
        prompt: '<@U999> approve > now',
        approvers: { users: ['<!here>'], groups: ['a&b'], slackUsers: ['<!everyone>'] },
        approveUrl: 'https://x.example/a|<!channel>',
      },
    };
    const text = JSON.stringify(slackMessage(n).blocks);
    for (const raw of ['<!channel>', '<!here>', '<!everyone>', '<@U999>', '<https://evil']) {
      assert.ok(!text.includes(raw), raw);
    }
    assert.ok(text.includes('a &lt;!channel&gt; &amp; &lt;https://evil.example|click&gt;'));
    assert.equal(escapeMrkdwn('<&>'), '&lt;&amp;&gt;');
  });

  it('escape the fallback text (the push notification) like the blocks', () => {
    const m = slackMessage({ ...awaiting, message: 'see <!channel> & <https://evil.example|x>' });
    assert.ok(!m.text.includes('<!channel>'), m.text);
    assert.ok(m.text.endsWith(': see &lt;!channel&gt; &amp; &lt;https://evil.example|x&gt;'));
    const resolved = slackResolvedMessage(awaiting, {
      decision: 'Approve',
      by: 'link:<!here>',
      via: 'link',
      at: '2026-01-02T03:10:00Z',
    });
    assert.ok(resolved.text.includes('approved by link:&lt;!here&gt; via link'), resolved.text);
  });

  it('keep sections within Block Kit limits', () => {
    const m = slackMessage(notification(NotificationKind.AnalysisFailed, 'x'.repeat(10_000)));
    for (const b of blocksOf(m)) assert.ok((b.text?.text.length ?? 0) <= 3000);
    assert.ok(m.text.length <= 3000);
  });

  it('resolved: no buttons, who decided, how and when', () => {
    const m = slackResolvedMessage(awaiting, {
      decision: 'Reject',
      by: 'alice <ops>',
      via: 'plugin',
      at: '2026-01-02T03:10:00Z',
      comment: 'error rate <too> high',
    });
    const text = JSON.stringify(m.blocks);
    assert.ok(!blocksOf(m).some((b) => b.type === 'actions'));
    assert.ok(text.includes(':no_entry: Rejected by *alice &lt;ops&gt;* via plugin'));
    assert.ok(text.includes('> error rate &lt;too&gt; high'));
    assert.match(m.text, /rejected by alice &lt;ops&gt; via plugin$/);
    const slack = slackResolvedMessage(awaiting, {
      decision: 'Approve',
      by: 'U0123ABCD',
      via: 'slack',
      at: '2026-01-02T03:10:00Z',
    });
    assert.ok(JSON.stringify(slack.blocks).includes('Approved by <@U0123ABCD> via slack'));
  });
});

describe('webhook payloads', () => {
  it('are a stable document, tokens only inside the URLs', () => {
    assert.deepEqual(webhookPayload(awaiting), {
      kind: 'awaiting-approval',
      rollout: { namespace: 'shop', name: 'checkout', uid: 'uid-1' },
      revision: '7c9d8b6f5',
      step: 2,
      stepCount: 5,
      message: 'Rollout is paused at step 3/5 waiting for approval',
      at: '2026-01-02T03:04:05Z',
      approval: {
        approveUrl: 'https://stepwise.example.com/approve/v1.AAA.BBB',
        rejectUrl: 'https://stepwise.example.com/reject/v1.CCC.DDD',
        expiresAt: '2026-01-02T03:34:05Z',
        minApprovals: 1,
        approvers: { users: ['alice'], groups: ['sre'], slackUsers: ['U0123ABCD'] },
        prompt: 'Check the dashboard first',
      },
    });
    const text = JSON.stringify(webhookPayload(awaiting));
    assert.ok(!text.includes('v1.approve.token') && !text.includes('v1.reject.token'));
  });

  it('keep every key, null when unknown, and no approval for other kinds', () => {
    const n: Notification = {
      kind: NotificationKind.Completed,
      rollout: { namespace: 'a', name: 'b', uid: 'c' },
      message: 'done',
      at: '2026-01-01T00:00:00Z',
    };
    assert.deepEqual(webhookPayload(n), {
      kind: 'completed',
      rollout: { namespace: 'a', name: 'b', uid: 'c' },
      revision: null,
      step: null,
      stepCount: null,
      message: 'done',
      at: '2026-01-01T00:00:00Z',
    });
    assert.equal('approval' in webhookPayload({ ...n, approval: awaiting.approval }), false);
  });
});
