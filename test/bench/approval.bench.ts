// Approval links against the real API server (issue 9 §9): POST of a valid signed link → the
// Rollout moves on (the controller's first write past the approval step, seen by a watcher),
// and → the decision recorded (the POST's answer), next to the API server floor of the run.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newTokenId, signApprovalToken } from '../../src/approval/index.ts';
import type { Rollout } from '../../src/api/index.ts';
import { freeLoopbackPorts } from '../cluster/ports.ts';
import {
  armRollout,
  clientFor,
  controller,
  createNamespace,
  healthyAndPromoted,
  installCrds,
  nowMs,
  rollout,
  ROLLOUTS,
  setImage,
  waitRollout,
} from './controller-support.ts';
import { formatStats, machine, stats, type Benchmark } from './harness.ts';

const ROUNDS = Number(process.env['BENCH_APPROVALS'] ?? 30);
const NS = 'bench-approval';

const awaiting = (r: Rollout): boolean =>
  r.status?.phase === 'Paused' &&
  r.status.message === 'AwaitingApproval' &&
  r.status.observedGeneration === String(r.metadata.generation);

const benchmark: Benchmark = {
  name: 'approval',
  description: 'POST of a valid approval link → the Rollout moves on (first write)',
  async run(ctx) {
    const cluster = await ctx.cluster();
    const http = clientFor(cluster);
    await installCrds(http);
    const floorData = (await ctx.previous('control-plane')) as
      { floor?: { watchPlusWriteP50Ms?: number } } | undefined;
    const floor = floorData?.floor?.watchPlusWriteP50Ms;
    const key = randomBytes(32);
    const dir = await mkdtemp(join(tmpdir(), 'stepwise-bench-approval-'));
    await writeFile(join(dir, 'approval-signing-key'), key, { mode: 0o600 });
    const { port } = await freeLoopbackPorts(['port']);
    const base = `http://127.0.0.1:${port}`;
    const ctl = await controller([
      '--leader-elect=false',
      `--namespace=${NS}`,
      `--external-bind-address=127.0.0.1:${port}`,
      `--public-url=${base}`,
      `--notifications-dir=${dir}`,
    ]);
    try {
      await createNamespace(http, NS);
      await http.json(
        'POST',
        `${ROLLOUTS}/namespaces/${NS}/rollouts`,
        rollout('web', { strategy: { canary: { steps: [{ approval: {} }] } } }),
      );
      await waitRollout(http, NS, 'web', healthyAndPromoted);
      const movedOn: number[] = [];
      const recorded: number[] = [];
      ctx.log(`  ${ROUNDS} updates, each approved through a signed link...`);
      for (let i = 0; i < ROUNDS; i++) {
        await setImage(http, NS, 'web', `app:${i + 2}`);
        const { rollout: waiting } = await waitRollout(http, NS, 'web', awaiting);
        const token = signApprovalToken(
          {
            rolloutUid: waiting.metadata.uid ?? '',
            namespace: NS,
            name: 'web',
            revision: waiting.status?.currentPodHash ?? '',
            step: 0,
            waitStart: Date.parse(
              waiting.status?.pauseConditions?.find((c) => c.reason === 'AwaitingApproval')
                ?.startTime ?? '',
            ),
            decision: 'Approve',
            expiresAt: Math.floor(Date.now() / 1000) + 600,
            id: newTokenId(),
          },
          key,
        );
        const next = await armRollout(
          http,
          NS,
          'web',
          (r) => (r.status?.currentStepIndex ?? 0) >= 1,
        );
        const t0 = nowMs();
        const res = await fetch(`${base}/approvals/${token}`, { method: 'POST' });
        recorded.push(nowMs() - t0);
        if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${await res.text()}`);
        movedOn.push((await next.done).at - t0);
        await waitRollout(http, NS, 'web', healthyAndPromoted);
      }
      const moved = stats(movedOn);
      const rec = stats(recorded);
      const ratio = (s: { p50: number; p99: number }) =>
        floor
          ? `  ratio to the floor (watch event + write p50 ${floor.toFixed(2)} ms): p50 ${(s.p50 / floor).toFixed(2)}×, p99 ${(s.p99 / floor).toFixed(2)}×`
          : '  no control-plane floor in this run';
      return {
        summary: [
          formatStats('POST of a valid link → Rollout moves on (first write)', moved),
          ratio(moved),
          formatStats('POST of a valid link → decision recorded (its answer)', rec),
        ],
        data: { machine: machine(), rounds: ROUNDS, movedOnMs: moved, recordedMs: rec, floor },
      };
    } finally {
      await ctl.kill();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

export default benchmark;
