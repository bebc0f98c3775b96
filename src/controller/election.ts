/**
 * Leader election for the manager: a Lease per instance (`stepwise-controller`, or
 * `stepwise-controller-<instance-id>`), renewed outside the request budget, and watched, so a
 * standby takes a released Lease at once instead of at its next retry.
 */
import { LEASE_NAME } from '../api/index.ts';
import {
  Informer,
  kubeLeaseClient,
  kubeListWatch,
  LeaderElector,
  Resources,
} from '../kube/index.ts';
import type { Clock, KubeApi, KubeObject, Lease, Logger } from '../kube/index.ts';
import type { ControllerConfig } from './config.ts';
import type { Election } from './manager.ts';

/** `leaseApi` bypasses the --qps bucket (see main.ts). Undefined without --leader-elect. */
export function leaseElection(
  config: ControllerConfig,
  leaseApi: KubeApi,
  clock: Clock,
  log: Logger,
): Election | undefined {
  if (!config.leaderElect) return undefined;
  const name = config.instanceId === undefined ? LEASE_NAME : `${LEASE_NAME}-${config.instanceId}`;
  const leaseWatch = new Informer<KubeObject>({
    name: 'lease',
    source: kubeListWatch(leaseApi, Resources.Lease, config.leaseNamespace),
    fieldSelector: `metadata.name=${name}`,
    clock,
    logger: log,
  });
  let elector: LeaderElector | undefined;
  return {
    lease: `${config.leaseNamespace}/${name}`,
    run(started, lost) {
      elector = new LeaderElector({
        client: kubeLeaseClient(leaseApi),
        namespace: config.leaseNamespace,
        name,
        leaseChanges: (onLease) => {
          const tell = (o: KubeObject | undefined) => onLease(o as Lease | undefined);
          leaseWatch.addEventHandler({
            onAdd: tell,
            onUpdate: (_old, o) => tell(o),
            onDelete: () => tell(undefined),
          });
          leaseWatch.start();
          return () => void leaseWatch.stop();
        },
        identity: config.identity,
        clock,
        logger: log,
        onStartedLeading: started,
        onStoppedLeading: lost,
      });
      return elector.run();
    },
    stop: async () => elector?.stop(),
  };
}
