// Slack button clicks: a well-formed block_actions payload gives the action; anything else gives
// SW_SLACK_PAYLOAD_INVALID saying what was wrong, and never an exception.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  APPROVE_ACTION_ID,
  REJECT_ACTION_ID,
  SlackRequestErrorCode,
  parseSlackInteraction,
  verifySlackSignature,
} from '../../../src/approval/index.ts';
import { blockActionsPayload, signedSlackInteraction } from '../../fixtures/slack-api-double.ts';

const payload = {
  type: 'block_actions',
  user: { id: 'U2CERLKJA', username: 'roadrunner', name: 'roadrunner', team_id: 'T1DC2JH3J' },
  team: { id: 'T1DC2JH3J', domain: 'testteamnow' },
  container: { type: 'message', message_ts: '1700000000.000100', channel_id: 'C0123ABCD' },
  channel: { id: 'C0123ABCD', name: 'releases' },
  message: { ts: '1700000000.000100', text: 'waiting' },
  response_url: 'https://hooks.slack.com/actions/T1DC2JH3J/1/abc',
  actions: [
    {
      type: 'button',
      action_id: APPROVE_ACTION_ID,
      block_id: 'b',
      value: 'v1.abc.def',
      action_ts: '1700000001.0001',
    },
  ],
};

const form = (p: unknown): Buffer =>
  Buffer.from(new URLSearchParams({ payload: JSON.stringify(p) }).toString());

function problem(body: Buffer): string {
  const r = parseSlackInteraction(body);
  assert.ok(!r.ok, 'refused');
  assert.equal(r.error.code, SlackRequestErrorCode.PayloadInvalid);
  return r.error.message;
}

describe('Slack interactions', () => {
  it('read the button, the user and where the message is', () => {
    assert.deepEqual(parseSlackInteraction(form(payload)), {
      ok: true,
      action: {
        userId: 'U2CERLKJA',
        userName: 'roadrunner',
        teamId: 'T1DC2JH3J',
        userTeamId: 'T1DC2JH3J',
        actionId: APPROVE_ACTION_ID,
        value: 'v1.abc.def',
        channelId: 'C0123ABCD',
        messageTs: '1700000000.000100',
        responseUrl: 'https://hooks.slack.com/actions/T1DC2JH3J/1/abc',
      },
    });
  });

  it('need only the user, the action and its value', () => {
    const minimal = {
      type: 'block_actions',
      user: { id: 'W012ABC' },
      actions: [{ action_id: REJECT_ACTION_ID, value: 't' }],
    };
    assert.deepEqual(parseSlackInteraction(form(minimal)), {
      ok: true,
      action: { userId: 'W012ABC', actionId: REJECT_ACTION_ID, value: 't' },
    });
  });

  it('take the channel and ts from the container when the rest is absent', () => {
    const r = parseSlackInteraction(form({ ...payload, channel: undefined, message: undefined }));
    assert.ok(r.ok);
    assert.equal(r.action.channelId, 'C0123ABCD');
    assert.equal(r.action.messageTs, '1700000000.000100');
  });

  const action = payload.actions[0];
  const cases: readonly [string, Buffer, RegExp][] = [
    ['an empty body', Buffer.alloc(0), /exactly one payload/],
    ['no payload field', Buffer.from('token=x&team_id=T1'), /exactly one payload/],
    ['two payload fields', Buffer.from('payload=%7B%7D&payload=%7B%7D'), /exactly one payload/],
    ['a payload that is not JSON', Buffer.from('payload=%7Bnope'), /not JSON/],
    ['a JSON array', form([payload]), /not a JSON object/],
    ['a JSON string', form('block_actions'), /not a JSON object/],
    ['another type', form({ ...payload, type: 'view_submission' }), /block_actions/],
    ['no actions', form({ ...payload, actions: [] }), /exactly one action/],
    ['two actions', form({ ...payload, actions: [action, action] }), /exactly one action/],
    ['actions not a list', form({ ...payload, actions: action }), /exactly one action/],
    [
      'a foreign action_id',
      form({ ...payload, actions: [{ ...action, action_id: 'x' }] }),
      /action_id/,
    ],
    ['a missing value', form({ ...payload, actions: [{ ...action, value: undefined }] }), /value/],
    ['a numeric value', form({ ...payload, actions: [{ ...action, value: 3 }] }), /value/],
    ['an empty value', form({ ...payload, actions: [{ ...action, value: '' }] }), /value/],
    [
      'an oversized value',
      form({ ...payload, actions: [{ ...action, value: 'x'.repeat(2001) }] }),
      /value/,
    ],
    ['no user', form({ ...payload, user: undefined }), /user\.id/],
    ['a user id of another kind', form({ ...payload, user: { id: 'B0123' } }), /user\.id/],
    ['a lower-case user id', form({ ...payload, user: { id: 'u2cerlkja' } }), /user\.id/],
    [
      'an http response_url',
      form({ ...payload, response_url: 'http://evil.example/x' }),
      /response_url/,
    ],
    ['a response_url that is no URL', form({ ...payload, response_url: 'hooks' }), /response_url/],
    ['a numeric channel id', form({ ...payload, channel: { id: 7 } }), /channel\.id/],
    [
      'a garbled message ts',
      form({ ...payload, container: { message_ts: 'now' }, message: undefined }),
      /message_ts/,
    ],
    ['an oversized body', Buffer.alloc(1024 * 1024 + 1, 0x61), /larger than/],
  ];
  for (const [name, body, message] of cases) {
    it(`refuse ${name}`, () => {
      assert.match(problem(body), message);
    });
  }

  it('never throw, whatever the bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        assert.equal(parseSlackInteraction(Buffer.from(bytes)).ok, false);
      }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), (json) => {
        parseSlackInteraction(form(json));
      }),
    );
  });

  it('a request built by the test double verifies and parses (what endpoint tests rely on)', () => {
    const payload = blockActionsPayload({
      userId: 'U0123ABCD',
      actionId: REJECT_ACTION_ID,
      value: 'v1.token.sig',
    });
    const { body, headers } = signedSlackInteraction(payload, 'signing-secret', 1_700_000_000);
    const verified = verifySlackSignature(
      {
        timestamp: headers['x-slack-request-timestamp'],
        signature: headers['x-slack-signature'],
        rawBody: body,
      },
      'signing-secret',
      1_700_000_010,
    );
    assert.deepEqual(verified, { ok: true });
    const r = parseSlackInteraction(body);
    assert.ok(r.ok);
    assert.deepEqual(
      [r.action.userId, r.action.actionId, r.action.value, r.action.channelId],
      ['U0123ABCD', REJECT_ACTION_ID, 'v1.token.sig', 'C0123ABCD'],
    );
  });
});
