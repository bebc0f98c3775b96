// The cluster-wide people mapping (--approval-people): read once at start; a file that could
// make one identity two people, or is not a list of people, stops the start naming the problem.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadApprovalPeople,
  parseApprovalPeople,
} from '../../../src/controller/approval-people.ts';
import { ConfigError, parseConfig } from '../../../src/controller/config.ts';

describe('--approval-people', () => {
  it('is a path in the configuration, absent by default', () => {
    assert.equal(parseConfig([], {}).approvalPeopleFile, undefined);
    const config = parseConfig(['--approval-people', '/etc/stepwise/people.yaml'], {});
    assert.equal(config.approvalPeopleFile, '/etc/stepwise/people.yaml');
  });

  it('reads a YAML list of people', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stepwise-people-'));
    const file = join(dir, 'people.yaml');
    await writeFile(
      file,
      '- name: alice\n  kubeUser: alice\n  slackUser: U0ALICE1\n- name: sam\n  slackUser: U0SAM\n  groups: [sre]\n',
    );
    assert.deepEqual(await loadApprovalPeople(file), [
      { name: 'alice', kubeUser: 'alice', slackUser: 'U0ALICE1' },
      { name: 'sam', slackUser: 'U0SAM', groups: ['sre'] },
    ]);
    assert.deepEqual(await loadApprovalPeople(undefined), []);
    await assert.rejects(loadApprovalPeople(join(dir, 'missing.yaml')), (err: Error) => {
      assert.ok(err instanceof ConfigError);
      assert.match(err.message, /--approval-people: cannot read .*missing\.yaml/);
      return true;
    });
  });

  it('an empty file maps nobody', () => {
    assert.deepEqual(parseApprovalPeople('', 'f'), []);
  });

  for (const [label, text, message] of [
    ['not YAML', '- [', /f: not YAML/],
    ['not a list', 'name: alice', /f: must be a list of \{name, kubeUser, groups, slackUser\}/],
    ['an unknown field', '- name: alice\n  email: a@x', /must be a list .*\(at \/0/],
    ['a person without a name', '- kubeUser: alice', /must be a list/],
    [
      'one Slack user for two people',
      '- name: alice\n  slackUser: U1\n- name: bob\n  slackUser: U1',
      /slackUser U1 appears for both alice and bob/,
    ],
    [
      'one Kubernetes user for two people',
      '- name: alice\n  kubeUser: a\n- name: bob\n  kubeUser: a',
      /kubeUser a appears for both alice and bob/,
    ],
    [
      'one name twice',
      '- name: alice\n- name: alice',
      /name alice appears for both alice and alice/,
    ],
  ] as const) {
    it(`refuses ${label}`, () => {
      assert.throws(
        () => parseApprovalPeople(text, 'f'),
        (err: Error) => err instanceof ConfigError && message.test(err.message),
      );
    });
  }
});
