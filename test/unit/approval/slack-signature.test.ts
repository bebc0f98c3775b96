// Slack request signatures: Slack's documented example, the five-minute window both ways, and
// everything that must be refused before the body is believed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SlackRequestErrorCode,
  slackSignature,
  verifySlackSignature,
} from '../../../src/approval/index.ts';

// The worked example of api.slack.com/authentication/verifying-requests-from-slack.
const DOC_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const DOC_TIMESTAMP = '1531420618';
const DOC_BODY = Buffer.from(
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c',
);
const DOC_SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const DOC_NOW = Number(DOC_TIMESTAMP);

function codeOf(
  req: { timestamp?: string | undefined; signature?: string | undefined; rawBody?: Buffer },
  now = DOC_NOW,
  secret = DOC_SECRET,
): string {
  const r = verifySlackSignature(
    {
      timestamp: 'timestamp' in req ? req.timestamp : DOC_TIMESTAMP,
      signature: 'signature' in req ? req.signature : DOC_SIGNATURE,
      rawBody: req.rawBody ?? DOC_BODY,
    },
    secret,
    now,
  );
  return r.ok ? 'ok' : r.error.code;
}

const { SignatureMissing, SignatureInvalid, TimestampStale } = SlackRequestErrorCode;

describe('Slack request signatures', () => {
  it("compute Slack's documented example", () => {
    assert.equal(slackSignature(DOC_BODY, DOC_TIMESTAMP, DOC_SECRET), DOC_SIGNATURE);
  });

  it("verify Slack's documented example", () => {
    assert.deepEqual(
      verifySlackSignature(
        { timestamp: DOC_TIMESTAMP, signature: DOC_SIGNATURE, rawBody: DOC_BODY },
        DOC_SECRET,
        DOC_NOW,
      ),
      { ok: true },
    );
  });

  it('accept up to five minutes either way, refuse one second more', () => {
    assert.equal(codeOf({}, DOC_NOW + 300), 'ok');
    assert.equal(codeOf({}, DOC_NOW - 300), 'ok');
    assert.equal(codeOf({}, DOC_NOW + 301), TimestampStale, 'stale');
    assert.equal(codeOf({}, DOC_NOW - 301), TimestampStale, 'from the future');
  });

  it('honour a smaller window when asked', () => {
    const req = { timestamp: DOC_TIMESTAMP, signature: DOC_SIGNATURE, rawBody: DOC_BODY };
    assert.equal(verifySlackSignature(req, DOC_SECRET, DOC_NOW + 61, 60).ok, false);
    assert.equal(verifySlackSignature(req, DOC_SECRET, DOC_NOW + 60, 60).ok, true);
  });

  const refused: readonly [string, Parameters<typeof codeOf>[0], string][] = [
    ['no timestamp', { timestamp: undefined }, SignatureMissing],
    ['an empty timestamp', { timestamp: '' }, SignatureMissing],
    ['no signature', { signature: undefined }, SignatureMissing],
    ['an empty signature', { signature: '' }, SignatureMissing],
    ['a fractional timestamp', { timestamp: `${DOC_TIMESTAMP}.5` }, SignatureInvalid],
    ['a negative timestamp', { timestamp: `-${DOC_TIMESTAMP}` }, SignatureInvalid],
    ['a timestamp with spaces', { timestamp: ` ${DOC_TIMESTAMP}` }, SignatureInvalid],
    ['a timestamp in hex', { timestamp: '0x5b47b1ca' }, SignatureInvalid],
    [
      'a body changed by one byte',
      { rawBody: Buffer.from(DOC_BODY).fill(0x41, 6, 7) },
      SignatureInvalid,
    ],
    [
      'a body with one byte more',
      { rawBody: Buffer.concat([DOC_BODY, Buffer.from('&')]) },
      SignatureInvalid,
    ],
    [
      'a signature one hex digit short',
      { signature: DOC_SIGNATURE.slice(0, -1) },
      SignatureInvalid,
    ],
    ['a signature one hex digit long', { signature: `${DOC_SIGNATURE}0` }, SignatureInvalid],
    ['a v1 signature', { signature: DOC_SIGNATURE.replace('v0=', 'v1=') }, SignatureInvalid],
    [
      'a signature in upper case',
      { signature: `v0=${DOC_SIGNATURE.slice(3).toUpperCase()}` },
      SignatureInvalid,
    ],
    [
      'a signature of another body',
      { signature: slackSignature(Buffer.from('x'), DOC_TIMESTAMP, DOC_SECRET) },
      SignatureInvalid,
    ],
    ['a signature for another timestamp', { timestamp: String(DOC_NOW + 1) }, SignatureInvalid],
    ['a garbled signature', { signature: 'v0=not-hex' }, SignatureInvalid],
    [
      'a multi-byte signature of the right length',
      { signature: `v0=${'é'.repeat(32)}` },
      SignatureInvalid,
    ],
  ];
  for (const [name, req, code] of refused) {
    it(`refuse ${name} (${code})`, () => {
      assert.equal(codeOf(req), code);
    });
  }

  it('refuse everything when no signing secret is configured', () => {
    const unsigned = slackSignature(DOC_BODY, DOC_TIMESTAMP, '');
    assert.equal(codeOf({ signature: unsigned }, DOC_NOW, ''), SignatureInvalid);
  });

  it('never put the secret in a message', () => {
    for (const [, req] of refused) {
      const r = verifySlackSignature(
        {
          timestamp: req.timestamp ?? DOC_TIMESTAMP,
          signature: req.signature ?? DOC_SIGNATURE,
          rawBody: req.rawBody ?? DOC_BODY,
        },
        DOC_SECRET,
        DOC_NOW,
      );
      assert.ok(r.ok || !r.error.message.includes(DOC_SECRET));
    }
  });
});
