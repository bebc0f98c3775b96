// Command lines of the control-plane components. Everything listens on 127.0.0.1 only: this
// machine has no default route, and tests must never reach anything but loopback.
import { join } from 'node:path';
import type { Pki } from './pki.ts';

export type ComponentName =
  'etcd' | 'kube-apiserver' | 'kube-controller-manager' | 'kube-scheduler' | 'kwok';

export interface Ports {
  readonly etcdClient: number;
  readonly etcdPeer: number;
  readonly apiserver: number;
  readonly controllerManager: number;
  readonly scheduler: number;
}

export interface Layout {
  readonly dataDir: string;
  readonly pki: Pki;
  readonly ports: Ports;
  readonly kubeconfigs: {
    readonly admin: string;
    readonly controllerManager: string;
    readonly scheduler: string;
  };
  readonly kwokConfig: string;
}

/** Controllers a Rollout controller's tests lean on. The HPA controller runs without a metrics
 *  API: it still raises a target to `minReplicas` (and lowers it to `maxReplicas`), which is what
 *  test/e2e/hpa.test.ts needs to drive a Rollout's scale subresource. */
export const CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'endpointslice-controller',
  'job-controller',
  'node-lifecycle-controller',
  'disruption-controller',
  'pod-garbage-collector-controller',
  'clusterrole-aggregation-controller',
  'root-ca-certificate-publisher-controller',
  'horizontal-pod-autoscaler-controller',
];

export const SERVICE_CIDR = '10.96.0.0/16';
export const POD_CIDR = '10.244.0.0/16';

export function componentArgs(name: ComponentName, l: Layout): string[] {
  const { pki, ports } = l;
  switch (name) {
    case 'etcd': {
      const peer = `http://127.0.0.1:${ports.etcdPeer}`;
      const client = `http://127.0.0.1:${ports.etcdClient}`;
      return [
        `--name=stepwise`,
        `--data-dir=${join(l.dataDir, 'etcd')}`,
        `--listen-client-urls=${client}`,
        `--advertise-client-urls=${client}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=stepwise=${peer}`,
        // Test data is thrown away: skip the fsyncs that dominate write latency on most disks.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ];
    }
    case 'kube-apiserver':
      return [
        `--etcd-servers=http://127.0.0.1:${ports.etcdClient}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${ports.apiserver}`,
        `--tls-cert-file=${pki.apiserver.certFile}`,
        `--tls-private-key-file=${pki.apiserver.keyFile}`,
        `--client-ca-file=${pki.caFile}`,
        // Without a front-proxy CA, every delegating component (controller-manager, scheduler)
        // logs "missing content for CA bundle" forever. No certificate with this CN is issued.
        `--requestheader-client-ca-file=${pki.caFile}`,
        '--requestheader-allowed-names=front-proxy-client',
        '--requestheader-username-headers=X-Remote-User',
        '--requestheader-group-headers=X-Remote-Group',
        '--requestheader-extra-headers-prefix=X-Remote-Extra-',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${pki.serviceAccountKeyFile}`,
        `--service-account-signing-key-file=${pki.serviceAccountKeyFile}`,
        `--service-cluster-ip-range=${SERVICE_CIDR}`,
        '--authorization-mode=RBAC',
        '--allow-privileged=true',
        // With a loopback advertise address the "kubernetes" Endpoints would be invalid.
        '--endpoint-reconciler-type=none',
        '--profiling=false',
      ];
    case 'kube-controller-manager':
      return [
        ...delegatedAuth(l.kubeconfigs.controllerManager),
        `--secure-port=${ports.controllerManager}`,
        `--cert-dir=${join(l.dataDir, 'kube-controller-manager')}`,
        '--leader-elect=false',
        `--controllers=${CONTROLLERS.join(',')}`,
        `--service-account-private-key-file=${pki.serviceAccountKeyFile}`,
        `--root-ca-file=${pki.caFile}`,
        // Each controller acts as its own service account, as in a kubeadm cluster, so RBAC
        // gaps show up here and not in production.
        '--use-service-account-credentials=true',
        // The default 20 QPS makes large benchmarks measure the controller-manager's limiter.
        '--kube-api-qps=200',
        '--kube-api-burst=400',
        // An HPA is first looked at one sync period after it is created (the controller's queue
        // delays every add by it); 15 s by default, which would be most of a test's budget.
        '--horizontal-pod-autoscaler-sync-period=1s',
      ];
    case 'kube-scheduler':
      return [
        ...delegatedAuth(l.kubeconfigs.scheduler),
        `--secure-port=${ports.scheduler}`,
        `--cert-dir=${join(l.dataDir, 'kube-scheduler')}`,
        '--leader-elect=false',
      ];
    case 'kwok':
      return [
        `--kubeconfig=${l.kubeconfigs.admin}`,
        `--config=${l.kwokConfig}`,
        '--manage-all-nodes=true',
        `--cidr=${POD_CIDR}`,
        '--node-lease-duration-seconds=40',
      ];
  }
}

function delegatedAuth(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
  ];
}
