/**
 * Pure rendering of a Notification: a Slack Block Kit message (with Approve/Reject buttons for
 * an awaiting-approval one), its resolved form for chat.update once decided, and the stable JSON
 * document generic webhooks receive. Text that comes from users (event messages, prompts, names,
 * comments) is escaped, so it can neither format links nor ping <!channel>.
 */
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from '../approval/index.ts';
import {
  NotificationKind,
  type ApprovalOutcome,
  type Approvers,
  type Notification,
} from './notification.ts';

export interface SlackMessage {
  /** Fallback text: notifications, screen readers, clients without Block Kit. */
  readonly text: string;
  readonly blocks: unknown[];
}

/** Block Kit's limit for a section's text. */
const MAX_SECTION_TEXT = 3000;
const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** Escapes the three characters Slack's mrkdwn gives meaning to (api.slack.com/reference/surfaces/formatting). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function slackMessage(n: Notification): SlackMessage {
  const head = headline(n);
  const body = [head, escapeMrkdwn(n.message)].filter((s) => s !== '').join('\n');
  const blocks: unknown[] = [section(body)];
  const a = n.kind === NotificationKind.AwaitingApproval ? n.approval : undefined;
  if (a !== undefined) {
    const details = [
      a.prompt !== undefined && a.prompt !== '' ? `> ${escapeMrkdwn(a.prompt)}` : '',
      approversLine(a.approvers, a.minApprovals),
      a.expiresAt !== undefined ? `Expires ${slackDate(a.expiresAt)}.` : '',
    ].filter((s) => s !== '');
    if (details.length > 0) blocks.push(section(details.join('\n')));
    blocks.push({
      type: 'actions',
      block_id: 'stepwise_approval',
      elements: [
        button(APPROVE_ACTION_ID, 'Approve', 'primary', a.approveToken),
        button(REJECT_ACTION_ID, 'Reject', 'danger', a.rejectToken),
      ],
    });
    const links = [link(a.approveUrl, 'Approve'), link(a.rejectUrl, 'Reject')].filter(
      (s) => s !== '',
    );
    if (links.length > 0) {
      blocks.push(context(`Or in the browser: ${links.join(' · ')}`));
    }
  }
  // Slack formats the fallback text too (it is the push notification): escaped like the blocks.
  return { text: clip(`${plainHeadline(n)}: ${escapeMrkdwn(n.message)}`), blocks };
}

/** The awaiting-approval message once decided: buttons gone, who decided, how and when. */
export function slackResolvedMessage(n: Notification, outcome: ApprovalOutcome): SlackMessage {
  const approved = outcome.decision === 'Approve';
  const who =
    outcome.via === 'slack' && SLACK_USER_ID.test(outcome.by)
      ? `<@${outcome.by}>`
      : `*${escapeMrkdwn(outcome.by)}*`;
  const overridden = outcome.decision === 'Override';
  const said = approved
    ? 'Approved'
    : overridden
      ? 'Approval overridden (break-glass)'
      : 'Rejected';
  const icon = approved ? ':white_check_mark:' : overridden ? ':warning:' : ':no_entry:';
  const verdict = `${icon} ${said} by ${who} via ${outcome.via} ${slackDate(outcome.at)}.`;
  const comment =
    outcome.comment !== undefined && outcome.comment !== ''
      ? `\n> ${escapeMrkdwn(outcome.comment)}`
      : '';
  const blocks: unknown[] = [
    section([headline(n), escapeMrkdwn(n.message)].join('\n')),
    section(`${verdict}${comment}`),
  ];
  const text = `${plainHeadline(n)}: ${said.toLowerCase()} by ${escapeMrkdwn(outcome.by)} via ${outcome.via}`;
  return { text: clip(text), blocks };
}

/** What generic webhooks receive. Every key is always present (null when unknown); tokens only
 *  ever travel inside the signed URLs. `step` is the step index, as in the Rollout's status. */
export interface WebhookPayload {
  readonly kind: Notification['kind'];
  readonly rollout: { readonly namespace: string; readonly name: string; readonly uid: string };
  readonly revision: string | null;
  readonly step: number | null;
  readonly stepCount: number | null;
  readonly message: string;
  readonly at: string;
  readonly approval?: {
    readonly approveUrl: string | null;
    readonly rejectUrl: string | null;
    readonly expiresAt: string | null;
    readonly minApprovals: number;
    readonly approvers: Approvers;
    readonly prompt: string | null;
  };
}

export function webhookPayload(n: Notification): WebhookPayload {
  const { namespace, name, uid } = n.rollout;
  const a = n.approval;
  return {
    kind: n.kind,
    rollout: { namespace, name, uid },
    revision: n.revision ?? null,
    step: n.step ?? null,
    stepCount: n.stepCount ?? null,
    message: n.message,
    at: n.at,
    ...(a !== undefined && n.kind === NotificationKind.AwaitingApproval
      ? {
          approval: {
            approveUrl: a.approveUrl ?? null,
            rejectUrl: a.rejectUrl ?? null,
            expiresAt: a.expiresAt ?? null,
            minApprovals: a.minApprovals,
            approvers: {
              users: [...a.approvers.users],
              groups: [...a.approvers.groups],
              slackUsers: [...a.approvers.slackUsers],
            },
            prompt: a.prompt ?? null,
          },
        }
      : {}),
  };
}

const emoji: Readonly<Record<Notification['kind'], string>> = {
  [NotificationKind.AwaitingApproval]: ':raised_hand:',
  [NotificationKind.StepCompleted]: ':white_check_mark:',
  [NotificationKind.AnalysisFailed]: ':x:',
  [NotificationKind.Aborted]: ':octagonal_sign:',
  [NotificationKind.Completed]: ':tada:',
  [NotificationKind.ApprovalRecorded]: ':memo:',
};

function headline(n: Notification): string {
  const who = `*${escapeMrkdwn(`${n.rollout.namespace}/${n.rollout.name}`)}*`;
  const revision = n.revision !== undefined ? ` (revision \`${escapeMrkdwn(n.revision)}\`)` : '';
  return `${emoji[n.kind]} ${who} ${what(n)}${revision}`;
}

function plainHeadline(n: Notification): string {
  return `${n.rollout.namespace}/${n.rollout.name} ${what(n)}`;
}

/** Steps are shown counted from 1, as Argo's event messages do ("step 2/4"). */
function what(n: Notification): string {
  const step =
    n.step === undefined
      ? ''
      : n.stepCount === undefined
        ? ` step ${n.step + 1}`
        : ` step ${n.step + 1}/${n.stepCount}`;
  switch (n.kind) {
    case NotificationKind.AwaitingApproval:
      return `is waiting for approval${step ? ` at${step}` : ''}`;
    case NotificationKind.StepCompleted:
      return `completed${step || ' a step'}`;
    case NotificationKind.AnalysisFailed:
      return `failed analysis${step ? ` at${step}` : ''}`;
    case NotificationKind.Aborted:
      return 'was aborted';
    case NotificationKind.Completed:
      return 'completed';
    case NotificationKind.ApprovalRecorded:
      return `recorded an approval${step ? ` at${step}` : ''}`;
  }
}

function approversLine(a: Approvers, minApprovals: number): string {
  const names = [
    ...a.slackUsers.map((u) => (SLACK_USER_ID.test(u) ? `<@${u}>` : escapeMrkdwn(u))),
    ...a.users.map(escapeMrkdwn),
    ...a.groups.map((g) => `group ${escapeMrkdwn(g)}`),
  ];
  const needed = `${minApprovals} approval${minApprovals === 1 ? '' : 's'} needed`;
  return names.length > 0 ? `Approvers: ${names.join(', ')} (${needed}).` : `${needed}.`;
}

function button(actionId: string, label: string, style: 'primary' | 'danger', value: string) {
  return {
    type: 'button',
    action_id: actionId,
    text: { type: 'plain_text', text: label },
    style,
    value,
  };
}

/** A Slack link, only for http(s) URLs that cannot break out of `<url|label>`. */
function link(url: string | undefined, label: string): string {
  if (url === undefined || url === '') return '';
  if (!/^https?:\/\/[^\s<>|]+$/.test(url)) return escapeMrkdwn(`${label}: ${url}`);
  return `<${url}|${label}>`;
}

/** Slack shows a date in the reader's time zone, with the RFC 3339 text as fallback. */
function slackDate(rfc3339: string): string {
  const ms = Date.parse(rfc3339);
  if (Number.isNaN(ms)) return escapeMrkdwn(rfc3339);
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} at {time}|${new Date(ms).toISOString()}>`;
}

function section(text: string) {
  return { type: 'section', text: { type: 'mrkdwn', text: clip(text) } };
}

function context(text: string) {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: clip(text) }] };
}

function clip(text: string): string {
  return text.length <= MAX_SECTION_TEXT ? text : `${text.slice(0, MAX_SECTION_TEXT - 1)}…`;
}
