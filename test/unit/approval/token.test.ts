// Signed approval links: a token verifies only as issued, by a configured key, before it expires;
// every alteration is refused with the code that says why.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ApprovalTokenErrorCode,
  MAX_TOKEN_LENGTH,
  newTokenId,
  signApprovalToken,
  verifyApprovalToken,
  type ApprovalClaims,
} from '../../../src/approval/index.ts';

const key = Buffer.alloc(32, 7);
const oldKey = Buffer.alloc(32, 9);
const now = 1_700_000_000;
const claims: ApprovalClaims = {
  rolloutUid: '6f1c2a8e-1d2b-4c3d-9e8f-0a1b2c3d4e5f',
  namespace: 'shop',
  name: 'checkout',
  revision: '7c9d8b6f5',
  step: 3,
  waitStart: now * 1000 - 60_000,
  decision: 'Approve',
  expiresAt: now + 1800,
  id: newTokenId(() => Buffer.alloc(16, 1)),
};
const token = signApprovalToken(claims, key);

function codeOf(t: string, keys: readonly Buffer[] = [key], at = now): string {
  const r = verifyApprovalToken(t, keys, at);
  return r.ok ? 'ok' : r.error.code;
}

/** The payload re-encoded from other claims, with the original signature kept. */
function reencoded(change: Partial<ApprovalClaims>): string {
  const [v, , sig] = token.split('.');
  const other = signApprovalToken({ ...claims, ...change }, Buffer.alloc(32, 3)).split('.')[1];
  return `${v}.${other}.${sig}`;
}

describe('approval tokens', () => {
  it('round-trip: what was signed is what verifies', () => {
    assert.deepEqual(verifyApprovalToken(token, [key], now), { ok: true, claims });
    assert.match(token, /^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'URL-safe, no padding');
    assert.ok(token.length < 300, `short enough for a link (${token.length})`);
  });

  it('a Reject token is distinct and verifies as Reject', () => {
    const reject = signApprovalToken({ ...claims, decision: 'Reject' }, key);
    assert.notEqual(reject, token);
    const r = verifyApprovalToken(reject, [key], now);
    assert.equal(r.ok && r.claims.decision, 'Reject');
  });

  const S = ApprovalTokenErrorCode.Signature;
  const M = ApprovalTokenErrorCode.Malformed;
  const [version, payload = '', signature = ''] = token.split('.');
  const other = signApprovalToken({ ...claims, step: 4 }, key);
  const flipped = Buffer.from(payload, 'base64url');
  flipped[5] = (flipped[5] ?? 0) ^ 0x01;
  const tampered: readonly [string, string, string][] = [
    ['a payload byte flipped', `${version}.${flipped.toString('base64url')}.${signature}`, S],
    ['the signature of another token', `${version}.${payload}.${other.split('.')[2]}`, S],
    ['a different step', reencoded({ step: 4 }), S],
    ['a different revision', reencoded({ revision: 'aaaaaaaaa' }), S],
    ['a different decision', reencoded({ decision: 'Reject' }), S],
    ['a different rollout uid', reencoded({ rolloutUid: 'another-uid' }), S],
    ['a later expiry', reencoded({ expiresAt: claims.expiresAt + 86400 }), S],
    ['truncated signature', token.slice(0, -2), M],
    ['truncated to two parts', `${version}.${payload}`, M],
    ['an extra dot', `${token}.`, M],
    ['an extra part', `${token}.AAAA`, M],
    ['a doubled dot', token.replace('.', '..'), M],
    ['wrong version', `v2.${payload}.${signature}`, M],
    ['no version', `.${payload}.${signature}`, M],
    ['non-base64 payload', `${version}.${payload.slice(0, -1)}*.${signature}`, M],
    ['standard base64 padding', `${version}.${payload}.${signature}=`, M],
    ['empty payload', `${version}..${signature}`, M],
    ['oversized', `${version}.${'A'.repeat(MAX_TOKEN_LENGTH)}.${signature}`, M],
    ['empty', '', M],
  ];
  for (const [name, t, code] of tampered) {
    it(`refuses ${name} (${code})`, () => {
      assert.equal(codeOf(t), code);
    });
  }

  it('refuses claims signed with a key not configured', () => {
    assert.equal(codeOf(signApprovalToken(claims, Buffer.alloc(32, 1))), S);
    assert.equal(codeOf(token, []), S);
  });

  it('refuses strictly parsed claims even when correctly signed', () => {
    // Tokens we would never issue, signed with the real key by hand.
    const forge = (json: unknown): string => {
      const p = Buffer.from(JSON.stringify(json)).toString('base64url');
      const s = createHmac('sha256', key).update(`v1.${p}`).digest('base64url');
      return `v1.${p}.${s}`;
    };
    const base = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    const bad: readonly [string, unknown][] = [
      ['an extra key', { ...base, x: 1 }],
      ['a missing key', { ...base, i: undefined }],
      ['a negative step', { ...base, s: -1 }],
      ['a fractional step', { ...base, s: 1.5 }],
      ['a string step', { ...base, s: '3' }],
      ['an unknown decision', { ...base, d: 'Maybe' }],
      ['a long decision name', { ...base, d: 'Approve' }],
      ['a short id', { ...base, i: 'AAAA' }],
      ['an empty name', { ...base, m: '' }],
      ['an array', [base]],
      ['null', null],
    ];
    assert.equal(codeOf(forge(base)), 'ok', 'the forger itself is right');
    for (const [name, json] of bad) assert.equal(codeOf(forge(json)), M, name);
    const p = Buffer.from('{"u":').toString('base64url');
    const s = createHmac('sha256', key).update(`v1.${p}`).digest('base64url');
    assert.equal(codeOf(`v1.${p}.${s}`), M, 'not JSON');
  });

  it('expires at exactly expiresAt, not a second before', () => {
    assert.equal(codeOf(token, [key], claims.expiresAt - 1), 'ok');
    assert.equal(codeOf(token, [key], claims.expiresAt), ApprovalTokenErrorCode.Expired);
    assert.equal(codeOf(token, [key], claims.expiresAt + 1), ApprovalTokenErrorCode.Expired);
  });

  it('rotation: keys[0] signs new tokens, tokens from an older key still verify', () => {
    const fromOld = signApprovalToken(claims, oldKey);
    assert.equal(codeOf(fromOld, [key, oldKey]), 'ok');
    assert.equal(codeOf(token, [key, oldKey]), 'ok');
    assert.equal(codeOf(fromOld, [key]), S, 'once the old key is removed');
  });

  it('messages never carry the key or the token', () => {
    for (const [, t] of tampered) {
      const r = verifyApprovalToken(t, [key], now);
      assert.ok(!r.ok);
      assert.ok(!r.error.message.includes(key.toString('base64url')));
      assert.ok(!r.error.message.includes(key.toString('hex')));
      assert.ok(t.length < 20 || !r.error.message.includes(t));
    }
  });

  it('refuses to sign with a short key or claims that could never verify', () => {
    assert.throws(() => signApprovalToken(claims, Buffer.alloc(16)), { code: M });
    assert.throws(() => signApprovalToken({ ...claims, step: -1 }, key), { code: M });
    assert.throws(() => signApprovalToken({ ...claims, id: 'x' }, key), { code: M });
    assert.throws(() => signApprovalToken({ ...claims, namespace: 'Not_A_Label' }, key), {
      code: M,
    });
  });

  it('token ids are 16 random bytes in base64url', () => {
    assert.match(newTokenId(), /^[A-Za-z0-9_-]{22}$/);
    assert.notEqual(newTokenId(), newTokenId());
    assert.throws(() => newTokenId(() => Buffer.alloc(4)), RangeError);
  });
});

const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
const arbClaims: fc.Arbitrary<ApprovalClaims> = fc.record({
  rolloutUid: fc.uuid(),
  namespace: label,
  name: fc.stringMatching(/^[a-z0-9]([-a-z0-9.]{0,60}[a-z0-9])?$/),
  revision: fc.stringMatching(/^[a-z0-9]{1,10}$/),
  step: fc.nat({ max: 1000 }),
  waitStart: fc.integer({ min: 0, max: 2 ** 50 }),
  decision: fc.constantFrom('Approve' as const, 'Reject' as const),
  expiresAt: fc.integer({ min: now + 1, max: 2 ** 40 }),
  id: fc
    .uint8Array({ minLength: 16, maxLength: 16 })
    .map((b) => Buffer.from(b).toString('base64url')),
});

describe('approval token properties', () => {
  it('random claims round-trip', () => {
    fc.assert(
      fc.property(arbClaims, (c) => {
        assert.deepEqual(verifyApprovalToken(signApprovalToken(c, key), [key], now), {
          ok: true,
          claims: { ...c },
        });
      }),
    );
  });

  it('a random single-character change to a token never verifies', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/ ';
    fc.assert(
      fc.property(arbClaims, fc.nat(), fc.constantFrom(...alphabet), (c, at, replacement) => {
        const t = signApprovalToken(c, key);
        const i = at % t.length;
        fc.pre(t[i] !== replacement);
        const changed = t.slice(0, i) + replacement + t.slice(i + 1);
        assert.equal(verifyApprovalToken(changed, [key], now).ok, false);
      }),
      { numRuns: 2000 },
    );
  });
});
