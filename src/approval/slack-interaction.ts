/**
 * Reads a Slack interactive request (api.slack.com/interactivity/handling): a form body with one
 * `payload` field of JSON, for us always a Block Kit `block_actions` from one of our two
 * buttons. Call it only on a body whose signature verified. Every field we use is checked;
 * anything else is a SlackRequestError naming what was wrong, never an exception.
 */
import { SlackRequestError, SlackRequestErrorCode } from './errors.ts';

export const APPROVE_ACTION_ID = 'stepwise_approve';
export const REJECT_ACTION_ID = 'stepwise_reject';
export type SlackActionId = typeof APPROVE_ACTION_ID | typeof REJECT_ACTION_ID;

export interface SlackButtonAction {
  /** The only identity Slack vouches for. */
  readonly userId: string;
  readonly userName?: string;
  readonly teamId?: string;
  /** The user's own workspace: differs from teamId for Slack Connect users of other orgs. */
  readonly userTeamId?: string;
  readonly actionId: SlackActionId;
  /** The signed approval token we put on the button. */
  readonly value: string;
  readonly channelId?: string;
  readonly messageTs?: string;
  readonly responseUrl?: string;
}

export type SlackInteractionResult =
  | { readonly ok: true; readonly action: SlackButtonAction }
  | { readonly ok: false; readonly error: SlackRequestError };

/** Slack's own limit for a button value. */
export const MAX_ACTION_VALUE_LENGTH = 2000;
/** Interaction bodies carry the whole message; anything past this is not from our buttons. */
export const MAX_INTERACTION_BODY_BYTES = 1024 * 1024;

const USER_ID = /^[UW][A-Z0-9]{2,}$/;
const SLACK_ID = /^[A-Z][A-Z0-9]{2,}$/;
const MESSAGE_TS = /^[0-9]{1,12}\.[0-9]{1,9}$/;
const MAX_NAME_LENGTH = 256;

export function parseSlackInteraction(rawBody: Buffer): SlackInteractionResult {
  if (rawBody.length > MAX_INTERACTION_BODY_BYTES) {
    return invalid(`the body is larger than ${MAX_INTERACTION_BODY_BYTES} bytes`);
  }
  const payloads = new URLSearchParams(rawBody.toString('utf8')).getAll('payload');
  if (payloads.length !== 1) {
    return invalid(`the form must have exactly one payload field (found ${payloads.length})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(payloads[0] ?? '');
  } catch {
    return invalid('the payload field is not JSON');
  }
  if (!isObject(json)) return invalid('the payload is not a JSON object');
  if (json['type'] !== 'block_actions') {
    return invalid(`payload type must be block_actions (got ${describe(json['type'])})`);
  }
  const actions = json['actions'];
  if (!Array.isArray(actions) || actions.length !== 1) {
    return invalid('the payload must carry exactly one action');
  }
  const action: unknown = actions[0];
  if (!isObject(action)) return invalid('the action is not an object');
  const actionId = action['action_id'];
  if (actionId !== APPROVE_ACTION_ID && actionId !== REJECT_ACTION_ID) {
    return invalid(`action_id must be ${APPROVE_ACTION_ID} or ${REJECT_ACTION_ID}`);
  }
  const value = action['value'];
  if (typeof value !== 'string' || value === '' || value.length > MAX_ACTION_VALUE_LENGTH) {
    return invalid(
      `the action value must be a string of 1 to ${MAX_ACTION_VALUE_LENGTH} characters`,
    );
  }
  const user = json['user'];
  const userId = isObject(user) ? user['id'] : undefined;
  if (typeof userId !== 'string' || !USER_ID.test(userId)) {
    return invalid('user.id must be a Slack user id (U… or W…)');
  }

  const team = json['team'];
  const container = json['container'];
  const channel = json['channel'];
  const message = json['message'];
  const badFields: string[] = [];
  const pick = (field: string, v: unknown, check: (s: string) => boolean): string | undefined => {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string' && check(v)) return v;
    badFields.push(field);
    return undefined;
  };
  const found: SlackButtonAction = {
    userId,
    actionId,
    value,
    userName: pick(
      'user.username',
      isObject(user) ? (user['username'] ?? user['name']) : undefined,
      (v) => v.length <= MAX_NAME_LENGTH,
    ),
    teamId: pick(
      'team.id',
      (isObject(team) ? team['id'] : undefined) ?? (isObject(user) ? user['team_id'] : undefined),
      (v) => SLACK_ID.test(v),
    ),
    userTeamId: pick('user.team_id', isObject(user) ? user['team_id'] : undefined, (v) =>
      SLACK_ID.test(v),
    ),
    channelId: pick(
      'channel.id',
      (isObject(channel) ? channel['id'] : undefined) ??
        (isObject(container) ? container['channel_id'] : undefined),
      (v) => SLACK_ID.test(v),
    ),
    messageTs: pick(
      'container.message_ts',
      (isObject(container) ? container['message_ts'] : undefined) ??
        (isObject(message) ? message['ts'] : undefined),
      (v) => MESSAGE_TS.test(v),
    ),
    // The caller may POST to it: only ever an https URL.
    responseUrl: pick('response_url', json['response_url'], httpsUrl),
  };
  if (badFields.length > 0) return invalid(`${badFields.join(', ')} not in Slack's format`);
  return { ok: true, action: withoutUndefined(found) };
}

/**
 * Why a button press from outside the allowed Slack workspaces (the `slack-team-id` setting) is
 * refused, or undefined when it is allowed. Both the workspace the press happened in and the
 * user's own must be allowed: a guest or a Slack Connect user of another organisation is not.
 * No list: every team is allowed.
 */
export function slackTeamRefusal(
  action: Pick<SlackButtonAction, 'teamId' | 'userTeamId' | 'userId'>,
  allowedTeams: readonly string[],
): string | undefined {
  if (allowedTeams.length === 0) return undefined;
  const teams = [action.teamId, action.userTeamId].filter((t) => t !== undefined);
  const outside = teams.find((t) => !allowedTeams.includes(t));
  if (teams.length > 0 && outside === undefined) return undefined;
  return `Slack user ${action.userId} is from workspace ${outside ?? '(none named)'}, which may not approve here`;
}

/** Absent optional fields are left out rather than set to undefined. */
function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function httpsUrl(v: string): boolean {
  try {
    return new URL(v).protocol === 'https:';
  } catch {
    return false;
  }
}

function describe(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : typeof v;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(message: string): SlackInteractionResult {
  return {
    ok: false,
    error: new SlackRequestError(
      SlackRequestErrorCode.PayloadInvalid,
      `Slack interaction: ${message}`,
    ),
  };
}
