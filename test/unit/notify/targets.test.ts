// The administrator's map of notification targets (issue 20 item 12): which channels and
// webhooks each namespace may use, `*` for every namespace, and the cap per Rollout that
// applies with or without a map.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_TARGETS_PER_ROLLOUT,
  parseTargetPolicy,
  selectTargets,
} from '../../../src/notify/index.ts';
import type { NotificationTarget, TargetPolicy } from '../../../src/notify/index.ts';

function policy(yaml: string): TargetPolicy {
  const parsed = parseTargetPolicy(yaml);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.problems.join('; '));
  return parsed.policy;
}

const slack = (channel: string): NotificationTarget => ({ kind: 'slack', channel });
const webhook = (name: string): NotificationTarget => ({ kind: 'webhook', name });
const slackHook = (name: string): NotificationTarget => ({ kind: 'slack-webhook', name });

const MAP = `
"*":
  webhooks: [audit]
team-a:
  slackChannels: ["#Team-A-Releases", C0TEAMA01]
  webhooks: [team-a]
platform:
  slackChannels: ["*"]
locked:
`;

describe('notification target map', () => {
  it('allows a namespace its own targets plus those of "*", and refuses the rest by name', () => {
    const p = policy(MAP);
    const chosen = selectTargets(
      [
        slack('#team-a-releases'),
        slack('C0TEAMA01'),
        slack('#sre-oncall'),
        webhook('team-a'),
        slackHook('audit'),
        webhook('team-b'),
      ],
      'team-a',
      p,
    );
    assert.deepEqual(chosen.allowed, [
      slack('#team-a-releases'),
      slack('C0TEAMA01'),
      webhook('team-a'),
      slackHook('audit'),
    ]);
    assert.deepEqual(
      chosen.refused.map((r) => [r.target, r.why]),
      [
        [slack('#sre-oncall'), 'not allowed for namespace team-a'],
        [webhook('team-b'), 'not allowed for namespace team-a'],
      ],
    );
  });

  it('a namespace not in the map gets only "*"; one listed empty gets only "*" too', () => {
    const p = policy(MAP);
    for (const ns of ['team-z', 'locked']) {
      const chosen = selectTargets([slack('C0TEAMA01'), webhook('audit')], ns, p);
      assert.deepEqual(chosen.allowed, [webhook('audit')], ns);
      assert.equal(chosen.refused.length, 1);
    }
    assert.deepEqual(selectTargets([slack('#anything')], 'platform', p).refused, []);
  });

  it('without "*", an unlisted namespace may notify nothing', () => {
    const p = policy('team-a: { webhooks: [team-a] }');
    assert.deepEqual(selectTargets([webhook('team-a')], 'team-b', p).allowed, []);
  });

  it(`caps a Rollout at ${MAX_TARGETS_PER_ROLLOUT} targets, with or without a map`, () => {
    const many = Array.from({ length: 8 }, (_, i) => slack(`#c${i}`));
    for (const p of [undefined, policy('"*": { slackChannels: ["*"] }')]) {
      const chosen = selectTargets(many, 'ns', p);
      assert.deepEqual(chosen.allowed, many.slice(0, MAX_TARGETS_PER_ROLLOUT));
      assert.deepEqual(
        chosen.refused.map((r) => r.why),
        Array(3).fill(`over ${MAX_TARGETS_PER_ROLLOUT} targets per Rollout`),
      );
    }
    assert.deepEqual(selectTargets(many.slice(0, 3), 'ns', undefined).refused, []);
  });

  it('refuses a malformed map with every problem named', () => {
    const bad = parseTargetPolicy(`
Team_A: { webhooks: [x] }
b: { slackChannel: [x] }
c: { webhooks: x }
d: [x]
`);
    assert.equal(bad.ok, false);
    assert.deepEqual(!bad.ok && bad.problems, [
      '"Team_A" is not a namespace name or "*"',
      'b.slackChannel: unknown (slackChannels, webhooks)',
      'c.webhooks: must be a list of names',
      'd: must be a map with slackChannels and/or webhooks',
    ]);
    assert.equal(parseTargetPolicy('[a]').ok, false, 'a list is not a map');
    const notYaml = parseTargetPolicy('a: [');
    assert.ok(!notYaml.ok && /not YAML/.test(notYaml.problems[0] ?? ''));
    const alias = parseTargetPolicy('*: { webhooks: [a] }');
    assert.equal(alias.ok, false, 'an unquoted * is a YAML alias: refused, not misread');
  });
});
