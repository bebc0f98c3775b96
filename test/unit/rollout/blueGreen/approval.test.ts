// blueGreen.approval: people approve the switch, as at a canary's approval step. The wait
// begins once the preview is up (and pre-promotion analysis passed); an approval passes the
// gate, a rejection aborts with the active Service never leaving the stable.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Sim, rolloutFixture, serviceFixture } from '../../../fixtures/rollout/sim.ts';
import type { BlueGreenStrategy } from '../../../../src/api/index.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../../../src/api/index.ts';

function gated(bg: Partial<BlueGreenStrategy> = {}): Sim {
  const s = new Sim(
    rolloutFixture({
      replicas: 2,
      strategy: {
        blueGreen: {
          activeService: 'active',
          previewService: 'preview',
          approval: { approvers: { users: ['alice'] } },
          ...bg,
        },
      },
    }),
  );
  s.services.set('active', serviceFixture('active'));
  s.services.set('preview', serviceFixture('preview'));
  s.run();
  s.setImage('web:2');
  s.run();
  return s;
}

const active = (s: Sim): string | undefined =>
  s.services.get('active')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL];

describe('blue-green approval gate', () => {
  it('waits for approval with the preview up, then switches once alice approves', () => {
    const s = gated();
    const st = s.rollout.status ?? {};
    assert.equal(st.phase, 'Paused');
    assert.equal(st.pauseConditions?.[0]?.reason, 'AwaitingApproval');
    assert.equal(st.currentStepIndex, 0);
    assert.equal(
      s.services.get('preview')?.spec?.selector?.[POD_TEMPLATE_HASH_LABEL],
      st.currentPodHash,
    );
    assert.notEqual(active(s), st.currentPodHash);
    assert.ok(
      s
        .events()
        .some(
          (e) => e.startsWith('ApprovalRequested:') && e.includes('the switch to the new version'),
        ),
    );
    s.decide('Approve', 'alice', { step: 0 });
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(active(s), s.rollout.status?.currentPodHash);
    assert.equal(s.rollout.status?.approvals?.[0]?.by, 'alice');
  });

  it('an approval by someone not asked is refused and the gate holds', () => {
    const s = gated();
    const name = s.decide('Approve', 'mallory', { step: 0 });
    s.run();
    assert.equal(s.approvals.get(name)?.status?.phase, 'Refused');
    assert.equal(s.rollout.status?.phase, 'Paused');
  });

  it('a rejection aborts: Degraded, the active Service stays on the stable', () => {
    const s = gated();
    const before = active(s);
    s.decide('Reject', 'alice', { step: 0, comment: 'not today' });
    s.run();
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.match(s.rollout.status?.message ?? '', /rejected by alice/);
    assert.equal(active(s), before);
  });

  it('its timeout aborts (not a moment before): Degraded, the active Service stays on the stable', () => {
    const s = gated({ approval: { approvers: { users: ['alice'] }, timeout: '30m' } });
    const before = active(s);
    s.advance(30 * 60_000 - 1);
    assert.deepEqual(s.pass().writes, []);
    s.advance(1);
    s.run();
    assert.equal(s.rollout.status?.abort, true);
    assert.equal(s.rollout.status?.phase, 'Degraded');
    assert.ok(s.events().some((e) => e.startsWith('ApprovalTimedOut:')));
    assert.equal(active(s), before);
  });

  it('with onTimeout: pause it keeps waiting, and a later approval still switches', () => {
    const s = gated({
      approval: { approvers: { users: ['alice'] }, timeout: 90, onTimeout: 'pause' },
    });
    s.advance(90_000);
    s.run();
    assert.equal(s.rollout.status?.phase, 'Paused');
    assert.equal(s.rollout.status?.abort, false);
    assert.notEqual(active(s), s.rollout.status?.currentPodHash);
    s.decide('Approve', 'alice', { step: 0 });
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
    assert.equal(active(s), s.rollout.status?.currentPodHash);
  });

  it('with autoPromotionEnabled false, the BlueGreenPause still follows the approval', () => {
    const s = gated({ autoPromotionEnabled: false });
    s.decide('Approve', 'alice', { step: 0 });
    s.run();
    assert.equal(s.rollout.status?.pauseConditions?.[0]?.reason, 'BlueGreenPause');
    s.promote();
    s.run();
    assert.equal(s.rollout.status?.phase, 'Healthy');
  });
});
