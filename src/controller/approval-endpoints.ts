/**
 * The approval endpoints of the external port: `/approvals/<token>` (a signed link: GET shows a
 * confirmation page, POST decides) and `/slack/interactions` (the Approve/Reject buttons). Both
 * end in one place: the decision is checked against the Rollout as the API server has it now
 * (the same rules as the planner's for RolloutApprovals) and appended to `status.approvals` with
 * a merge patch that carries the resourceVersion it was judged on, so two uses of one token, or
 * a decision racing the rollout moving on, cannot both land. The planner then acts on the record.
 */
import type { ApprovalClaims, SlackVerifyResult } from '../approval/index.ts';
import {
  APPROVE_ACTION_ID,
  parseSlackInteraction,
  slackTeamRefusal,
  SLACK_SIGNATURE_HEADER,
  SLACK_TIMESTAMP_HEADER,
  verifyApprovalToken,
  verifySlackSignature,
} from '../approval/index.ts';
import { APPROVALS_FIELD_MANAGER } from '../api/index.ts';
import type { ApprovalRecord, Person, Rollout } from '../api/index.ts';
import { stripControlCharacters } from '../api/control-chars.ts';
import { isConflict, Resources } from '../kube/index.ts';
import type { KubeApi, Logger } from '../kube/index.ts';
import {
  describeApprovers,
  judgeApproval,
  recordEvent,
  refusalFor,
  storedApprovalContext,
} from '../rollout/approval.ts';
import { personOf } from '../rollout/approval-people.ts';
import type { Identity } from '../rollout/approval-people.ts';
import { approvalGateAt, gatePlace } from '../rollout/index.ts';
import type { ExternalRequest, ExternalResponse, Route } from '../server/external.ts';
import { html, text } from '../server/external.ts';
import { confirmationPage, resultPage } from '../server/pages.ts';
import type { EventSink, PlannedEvent } from './rollout-reconciler.ts';

export interface ApprovalEndpointDeps {
  readonly api: KubeApi;
  /** The Rollout from the informer cache (GET pages read it; decisions read the server). */
  readonly cached: (namespace: string, name: string) => Rollout | undefined;
  /** Link signing keys, newest first; empty when links are not configured. */
  readonly keys: () => readonly Buffer[];
  readonly slackSigningSecret: () => string | undefined;
  /** Slack workspaces whose users' presses count (slack-team-id); empty or absent: any. */
  readonly slackTeamIds?: () => readonly string[];
  /** The cluster-wide mapping of people to identities (--approval-people). */
  readonly people?: () => readonly Person[];
  readonly events: EventSink;
  readonly now: () => number;
  readonly log: Logger;
  /** A decision landed, with the event that says so (notifications are made from it). */
  readonly onRecorded?: (rollout: Rollout, event: PlannedEvent) => void;
}

const TOKEN_PATH = /^\/approvals\/([A-Za-z0-9._-]{1,1024})$/;
const SLACK_PATH = /^\/slack\/interactions$/;
const MAX_COMMENT = 1024;
const CONFLICT_RETRIES = 3;

export function approvalRoutes(deps: ApprovalEndpointDeps): Route[] {
  return [
    {
      method: 'GET',
      pattern: TOKEN_PATH,
      acts: false,
      handle: (r) => Promise.resolve(showLink(deps, r)),
    },
    { method: 'POST', pattern: TOKEN_PATH, acts: true, handle: (r) => useLink(deps, r) },
    {
      method: 'POST',
      pattern: SLACK_PATH,
      acts: true,
      handle: (r) => slackAction(deps, r),
      proves: (r) => slackSigned(deps, r).ok,
    },
  ];
}

/** A refusal, said once: as a page for links, as text for Slack. */
interface Refused {
  readonly status: number;
  readonly title: string;
  readonly message: string;
}

type Checked = { ok: true; claims: ApprovalClaims } | { ok: false; refused: Refused };

function checkToken(deps: ApprovalEndpointDeps, token: string): Checked {
  const keys = deps.keys();
  if (keys.length === 0) {
    return { ok: false, refused: no(404, 'Not available', 'Approval links are not enabled.') };
  }
  const verified = verifyApprovalToken(token, keys, Math.floor(deps.now() / 1000));
  if (verified.ok) return { ok: true, claims: verified.claims };
  const expired = verified.error.code === 'SW_APPROVAL_TOKEN_EXPIRED';
  return {
    ok: false,
    refused: expired
      ? no(410, 'Link expired', 'This approval link has expired. Ask for a new one.')
      : no(400, 'Invalid link', 'This approval link is not valid.'),
  };
}

/** GET: reads the cache, never writes (chat apps and scanners fetch every link). */
function showLink(deps: ApprovalEndpointDeps, req: ExternalRequest): ExternalResponse {
  const checked = checkToken(deps, req.params[0] ?? '');
  if (!checked.ok) return page(checked.refused);
  const c = checked.claims;
  const rollout = deps.cached(c.namespace, c.name);
  if (rollout === undefined) return page(notFound(c));
  const people = deps.people?.() ?? [];
  const refused = refusal(rollout, c, `link:${c.id}`, linkIdentity(c), people);
  if (refused !== undefined) return page(refused);
  const ctx = storedApprovalContext(rollout);
  const step = ctx.waiting?.step ?? {};
  const outcome = ctx.waiting
    ? judgeApproval(ctx.waiting, ctx.records, ctx.waiting.since ?? NaN, deps.now(), people)
    : undefined;
  return html(
    200,
    confirmationPage({
      decision: c.decision,
      namespace: c.namespace,
      rollout: c.name,
      step: gatePlace(rollout, c.step),
      revision: c.revision,
      asked: describeApprovers(step.approvers ?? {}),
      ...(step.message ? { prompt: step.message } : {}),
      timeLeft: minutesLeft(c.expiresAt * 1000 - deps.now()),
      approvalsSoFar: `${outcome?.kind === 'waiting' ? outcome.approvals : 0} of ${step.minApprovals ?? 1}`,
    }),
  );
}

async function useLink(
  deps: ApprovalEndpointDeps,
  req: ExternalRequest,
): Promise<ExternalResponse> {
  const checked = checkToken(deps, req.params[0] ?? '');
  if (!checked.ok) return page(checked.refused);
  const c = checked.claims;
  const form = new URLSearchParams(req.rawBody.toString('utf8'));
  const comment = stripControlCharacters(form.get('comment') ?? '')
    .trim()
    .slice(0, MAX_COMMENT);
  const result = await decide(deps, c, {
    identity: linkIdentity(c),
    ref: `link:${c.id}`,
    comment,
  });
  if (!result.ok) return page(result.refused);
  const what = c.decision === 'Approve' ? 'Approved' : 'Rejected';
  return page({
    status: 200,
    title: what,
    message: `${what}: ${c.namespace}/${c.name}, step ${c.step + 1} of revision ${c.revision}. The rollout ${c.decision === 'Approve' ? 'moves on once enough approvals are in' : 'goes back to its stable version'}.`,
  });
}

async function slackAction(
  deps: ApprovalEndpointDeps,
  req: ExternalRequest,
): Promise<ExternalResponse> {
  if (deps.slackSigningSecret() === undefined) {
    return text(404, 'Slack interactions are not enabled');
  }
  const signed = slackSigned(deps, req);
  if (!signed.ok) {
    deps.log.warn('Slack request refused', { code: signed.error.code });
    return text(401, signed.error.message);
  }
  const parsed = parseSlackInteraction(req.rawBody);
  if (!parsed.ok) return text(400, parsed.error.message);
  const action = parsed.action;
  const otherTeam = slackTeamRefusal(action, deps.slackTeamIds?.() ?? []);
  if (otherTeam !== undefined) return text(403, otherTeam);
  const checked = checkToken(deps, action.value);
  if (!checked.ok) return slackReply(`This button no longer works: ${checked.refused.message}`);
  const c = checked.claims;
  const pressed = action.actionId === APPROVE_ACTION_ID ? 'Approve' : 'Reject';
  if (pressed !== c.decision) return text(400, 'the button and its token disagree');
  const result = await decide(deps, c, {
    identity: { by: action.userId, via: 'slack' },
    ref: `slack:${c.id}:${action.userId}`,
    comment: '',
  });
  if (!result.ok) return slackReply(result.refused.message);
  return slackReply(`${c.decision === 'Approve' ? 'Approved' : 'Rejected'} by <@${action.userId}>`);
}

/** Slack's signature over the raw body (an HMAC: cheap enough to check before rate limiting). */
function slackSigned(
  deps: ApprovalEndpointDeps,
  req: Pick<ExternalRequest, 'headers' | 'rawBody'>,
): SlackVerifyResult {
  return verifySlackSignature(
    {
      timestamp: req.headers[SLACK_TIMESTAMP_HEADER],
      signature: req.headers[SLACK_SIGNATURE_HEADER],
      rawBody: req.rawBody,
    },
    deps.slackSigningSecret() ?? '', // none configured: refused like a bad signature
    Math.floor(deps.now() / 1000),
  );
}

/** Slack shows nothing of a 200's body for button presses; it is there for logs and tests. */
function slackReply(message: string): ExternalResponse {
  return {
    status: 200,
    body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text: message }),
    contentType: 'application/json; charset=utf-8',
  };
}

interface Decider {
  readonly identity: Identity & { readonly via: 'link' | 'slack' };
  readonly ref: string;
  readonly comment: string;
}

/** A link proves nobody: its identity is the token. */
const linkIdentity = (c: ApprovalClaims) => ({ by: `link:${c.id}`, via: 'link' as const });

type Decided = { ok: true; record: ApprovalRecord } | { ok: false; refused: Refused };

/**
 * Judges the decision on the Rollout as stored and records it. The first try judges the cached
 * copy and writes on its resourceVersion (one round trip); a refusal is confirmed on a fresh
 * read before it is answered (the cache may not show the step yet), and a lost race (Conflict)
 * is judged again on a fresh read.
 */
async function decide(deps: ApprovalEndpointDeps, c: ApprovalClaims, d: Decider): Promise<Decided> {
  const fresh = () =>
    deps.api.get<Rollout & { metadata: object }>(Resources.Rollout, c.namespace, c.name);
  const people = deps.people?.() ?? [];
  for (let attempt = 0; ; attempt++) {
    let rollout = attempt === 0 ? deps.cached(c.namespace, c.name) : await fresh();
    let refused = rollout && refusal(rollout, c, d.ref, d.identity, people);
    if (attempt === 0 && (rollout === undefined || refused !== undefined)) {
      rollout = await fresh();
      refused = rollout && refusal(rollout, c, d.ref, d.identity, people);
    }
    if (rollout === undefined) return { ok: false, refused: notFound(c) };
    if (refused !== undefined) return { ok: false, refused };
    const approvers = approvalGateAt(rollout, c.step)?.approvers ?? {};
    const person = personOf(d.identity, approvers, people);
    const record: ApprovalRecord = {
      step: c.step,
      revision: c.revision,
      decision: c.decision,
      by: d.identity.by,
      via: d.identity.via,
      at: new Date(deps.now()).toISOString(),
      ...(d.comment ? { comment: d.comment } : {}),
      ...(person !== undefined ? { person: person.name } : {}),
      ref: d.ref,
    };
    try {
      await deps.api.patchMerge(
        Resources.Rollout,
        c.namespace,
        c.name,
        {
          metadata: { resourceVersion: rollout.metadata.resourceVersion },
          status: { approvals: [...(rollout.status?.approvals ?? []), record] },
        },
        { subresource: 'status', fieldManager: APPROVALS_FIELD_MANAGER },
      );
    } catch (err) {
      if (isConflict(err) && attempt < CONFLICT_RETRIES) continue;
      throw err;
    }
    const event = recordEvent(record);
    deps.events.event(rollout, event.type, event.reason, event.message);
    deps.onRecorded?.(rollout, event);
    deps.log.info('approval recorded', {
      rollout: `${c.namespace}/${c.name}`,
      decision: c.decision,
      via: d.identity.via,
      by: d.identity.by,
      step: c.step,
      revision: c.revision,
    });
    return { ok: true, record };
  }
}

/** Why this token cannot decide on `rollout` now; undefined: it can. */
function refusal(
  rollout: Rollout,
  c: ApprovalClaims,
  ref: string,
  identity: Identity,
  people: readonly Person[],
): Refused | undefined {
  if (rollout.metadata.uid !== c.rolloutUid) {
    return no(410, 'Link expired', 'This link is for an earlier Rollout of that name.');
  }
  const ctx = storedApprovalContext(rollout);
  const used = ctx.records.find((r) => r.ref === ref);
  if (used !== undefined) {
    return no(409, 'Already used', `This was already used: ${used.decision} at ${used.at}.`);
  }
  const refused = refusalFor(
    { revision: c.revision, step: c.step, identity, waitStart: c.waitStart },
    { ...ctx, people },
  );
  return refused === undefined ? undefined : no(409, 'Not accepted', refusedText(refused));
}

/** The reason code is said too: it is what the docs and the Rollout's events name. */
const refusedText = (r: { readonly reason: string; readonly message: string }): string =>
  `${r.message} (${r.reason})`;

const no = (status: number, title: string, message: string): Refused => ({
  status,
  title,
  message,
});

const notFound = (c: ApprovalClaims): Refused =>
  no(404, 'Not found', `Rollout ${c.namespace}/${c.name} was not found.`);

function page(r: Refused): ExternalResponse {
  return html(r.status, resultPage(r.title, r.message));
}

function minutesLeft(ms: number): string {
  if (ms <= 0) return 'none';
  const minutes = Math.ceil(ms / 60_000);
  return minutes < 120 ? `${minutes} min` : `${Math.round(minutes / 60)} h`;
}
