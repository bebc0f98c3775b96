// Leader failover as issue 11 measures it: a graceful hand-over (SIGTERM: the leader releases
// the Lease and the standby, watching it, takes it at once) repeated for a p99; a crash of the
// leader (SIGKILL: the standby waits out the Lease); and a restart of the same pod (SIGKILL, then
// the same identity starts again and takes its own Lease back without waiting for it to expire).
import type { KubeHttp } from '../cluster/kube-http.ts';
import type { ControllerProcess } from '../e2e/support/controller.ts';
import { controller, createNamespace, nowMs } from './controller-support.ts';
import { formatStats, stats, type Stats } from './harness.ts';

const GRACEFUL_HANDOVERS = 10;
const LEASE_SECONDS = 15;

export interface Failover {
  readonly graceful: Stats;
  readonly crash: number;
  readonly restart: number;
}

export async function leaderFailover(http: KubeHttp): Promise<Failover> {
  const ns = 'bench-leader';
  await createNamespace(http, ns);
  const start = (id: string) =>
    controller([
      '--leader-elect=true',
      `--lease-namespace=${ns}`,
      `--identity=${id}`,
      `--namespace=${ns}`,
    ]);
  const became = (c: ControllerProcess) =>
    c.waitForLog((l) => l.msg === 'leader election: became leader', 60_000).then(() => nowMs());

  let leader = await start('r0');
  await became(leader);
  const graceful: number[] = [];
  for (let i = 1; i <= GRACEFUL_HANDOVERS; i++) {
    const standby = await start(`r${i}`);
    const leads = became(standby);
    const t0 = nowMs();
    await leader.stop();
    graceful.push((await leads) - t0);
    leader = standby;
  }

  const standby = await start('crash-standby');
  const standbyLeads = became(standby);
  const t1 = nowMs();
  await leader.kill();
  const crash = (await standbyLeads) - t1;

  // The same pod restarted: its container comes back with the same POD_NAME identity.
  const t2 = nowMs();
  await standby.kill();
  const again = await start('crash-standby');
  const restart = (await became(again)) - t2;
  await again.stop();
  return { graceful: stats(graceful), crash, restart };
}

export function formatFailover(f: Failover): string[] {
  const ms = (x: number) => `${x.toFixed(0)} ms`;
  return [
    formatStats('leader failover, graceful (SIGTERM; < 1 s p99)', f.graceful),
    `leader failover, crash (SIGKILL; Lease ${LEASE_SECONDS} s): ${ms(f.crash)}; ` +
      `same pod restarted (SIGKILL, same identity; < 2 s, process start included): ${ms(f.restart)}`,
  ];
}
