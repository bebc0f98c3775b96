import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ConfigError,
  configOrExit,
  ExitCode,
  parseConfig,
} from '../../../src/controller/config.ts';

describe('controller configuration', () => {
  it('has safe defaults: loopback metrics, leader election on, all namespaces', () => {
    const c = parseConfig([], {});
    assert.equal(c.metricsHost, '127.0.0.1');
    assert.equal(c.metricsPort, 8090);
    assert.equal(c.leaderElect, true);
    assert.equal(c.namespace, undefined);
    assert.equal(c.leaseNamespace, 'default');
    assert.equal(c.workers, 10);
    assert.equal(c.analysisWorkers, 30);
  });

  it('reads flags and the pod namespace from the environment', () => {
    const c = parseConfig(
      [
        '--namespace=team',
        '--workers=3',
        '--analysis-workers=4',
        '--metrics-bind-address=0.0.0.0:9000',
        '--leader-elect=false',
      ],
      { POD_NAMESPACE: 'stepwise-system' },
    );
    assert.deepEqual(
      [
        c.namespace,
        c.workers,
        c.analysisWorkers,
        c.metricsHost,
        c.metricsPort,
        c.leaderElect,
        c.leaseNamespace,
      ],
      ['team', 3, 4, '0.0.0.0', 9000, false, 'stepwise-system'],
    );
  });

  for (const [args, message] of [
    [['--workers=0'], /--workers must be a positive integer/],
    [['--workers=ten'], /--workers must be a positive integer/],
    [['--analysis-workers=0'], /--analysis-workers must be a positive integer/],
    [['--leader-elect=yes'], /--leader-elect must be true or false/],
    [['--metrics-bind-address=nowhere'], /--metrics-bind-address must be host:port/],
    [['--log-level=loud'], /--log-level must be/],
    [['--instance-id=team a'], /--instance-id must be a label value/],
    [['--instance-id=-x'], /--instance-id must be a label value/],
    [['--external-bind-address=8080'], /--external-bind-address must be host:port/],
    [['--public-url=stepwise.example.com'], /--public-url must be an http\(s\) URL/],
    [['--notifications-secret=just-a-name'], /--notifications-secret must be NAMESPACE\/NAME/],
    [['--approval-link-ttl=forever'], /--approval-link-ttl must be a positive duration/],
    [['--reclaim-memory-after=soon'], /--reclaim-memory-after must be a duration/],
    [['--reclaim-memory-after=-5s'], /--reclaim-memory-after must be a duration/],
    [['--rollout-replica-metrics=yes'], /--rollout-replica-metrics must be true or false/],
  ] as const) {
    it(`rejects ${args.join(' ')} with a message naming the flag`, () => {
      assert.throws(
        () => parseConfig([...args], {}),
        (err: unknown) => err instanceof ConfigError && message.test(err.message),
      );
    });
  }

  it('reads the approval and instance flags', () => {
    const c = parseConfig(
      [
        '--instance-id=team-a',
        '--external-bind-address=0.0.0.0:8080',
        '--public-url=https://stepwise.example.com/',
        '--notifications-secret=stepwise-system/notify',
        '--approval-link-ttl=2h',
      ],
      {},
    );
    assert.equal(c.instanceId, 'team-a');
    assert.deepEqual([c.external?.host, c.external?.port], ['0.0.0.0', 8080]);
    assert.equal(c.publicUrl, 'https://stepwise.example.com', 'no trailing slash');
    assert.deepEqual(c.notificationsSecret, { namespace: 'stepwise-system', name: 'notify' });
    assert.equal(c.approvalLinkTtlMs, 7_200_000);
    assert.equal(parseConfig([], {}).approvalLinkTtlMs, 86_400_000, 'default 24h');
    assert.equal(parseConfig([], {}).external, undefined, 'the external port is off by default');
  });

  it('reclaims memory after 10 s idle unless told otherwise; 0 turns it off', () => {
    assert.equal(parseConfig([], {}).reclaimMemoryAfterMs, 10_000);
    assert.equal(parseConfig(['--reclaim-memory-after=1m'], {}).reclaimMemoryAfterMs, 60_000);
    assert.equal(parseConfig(['--reclaim-memory-after=0'], {}).reclaimMemoryAfterMs, 0);
  });

  it("serves Argo's per-Rollout replica gauges only with --rollout-replica-metrics=true", () => {
    assert.equal(parseConfig([], {}).rolloutReplicaMetrics, false);
    assert.equal(parseConfig(['--rollout-replica-metrics=true'], {}).rolloutReplicaMetrics, true);
  });

  it('analysis hosts: none added by default; lists of CIDRs and names; a bad entry is named', () => {
    assert.deepEqual(parseConfig([], {}).analysisHosts, { allowed: [], denied: [] });
    const c = parseConfig(
      ['--analysis-allowed-hosts=127.0.0.0/8,::1', '--analysis-denied-hosts=10.0.0.0/8, *.corp'],
      {},
    );
    assert.deepEqual(c.analysisHosts, {
      allowed: ['127.0.0.0/8', '::1'],
      denied: ['10.0.0.0/8', '*.corp'],
    });
    assert.throws(
      () => parseConfig(['--analysis-denied-hosts=10.0.0.0/40'], {}),
      /--analysis-denied-hosts: "10.0.0.0\/40" is not a CIDR/,
    );
  });

  it('--namespaced: only with --namespace (the one namespace it may read)', () => {
    assert.equal(parseConfig([], {}).namespaced, false);
    assert.equal(parseConfig(['--namespace=team', '--namespaced'], {}).namespaced, true);
    assert.equal(parseConfig(['--namespaced'], { STEPWISE_NAMESPACE: 'team' }).namespaced, true);
    assert.throws(() => parseConfig(['--namespaced'], {}), /--namespaced needs --namespace/);
  });

  it("--api-group=argoproj.io watches Argo's controller Lease (default install's, another, or none)", () => {
    assert.equal(parseConfig([], {}).argoControllerLease, undefined);
    const lease = (...args: string[]) =>
      parseConfig(['--api-group=argoproj.io', ...args], {}).argoControllerLease;
    assert.equal(lease(), 'argo-rollouts/argo-rollouts-controller-lock');
    assert.equal(
      lease('--argo-controller-lease=ops/argo-rollouts-controller-lock'),
      'ops/argo-rollouts-controller-lock',
    );
    assert.equal(lease('--argo-controller-lease=none'), undefined);
    assert.throws(() => lease('--argo-controller-lease=just-a-name'), /NAMESPACE\/NAME or none/);
    assert.throws(
      () => parseConfig(['--argo-controller-lease=ops/lock'], {}),
      /--argo-controller-lease needs --api-group=argoproj.io/,
    );
  });

  it('rejects an unknown flag', () => {
    assert.throws(() => parseConfig(['--frobnicate'], {}), /Unknown option '--frobnicate'/);
  });
});

describe('the configuration of the process', () => {
  const streams = () => {
    const out = { stdout: '', stderr: '' };
    const sink = (k: 'stdout' | 'stderr') =>
      ({ write: (s: string) => ((out[k] += s), true) }) as unknown as NodeJS.WritableStream;
    return { out, io: { stdout: sink('stdout'), stderr: sink('stderr') } };
  };

  it('--help: the usage on stdout and exit code 0', () => {
    const { out, io } = streams();
    assert.equal(configOrExit(['--help'], {}, io), ExitCode.ok);
    assert.match(out.stdout, /^stepwise-controller \[flags\]\n/);
    assert.equal(out.stderr, '');
  });

  it('--version: version, commit and build date on stdout, exit code 0', () => {
    const { out, io } = streams();
    assert.equal(configOrExit(['--version', '--workers=3'], {}, io), ExitCode.ok);
    assert.match(
      out.stdout,
      /^stepwise-controller v\d+\.\d+\.\d+\n {2}Commit: unknown\n {2}Build date: unknown\n {2}Node: v/,
    );
    assert.equal(out.stderr, '');
  });

  it('bad flags: one line on stderr naming the flag, exit code 2', () => {
    const { out, io } = streams();
    assert.equal(configOrExit(['--workers=0'], {}, io), ExitCode.badFlags);
    assert.match(out.stderr, /--workers must be a positive integer/);
    assert.equal(out.stdout, '');
  });

  it('good flags: the configuration', () => {
    const { io } = streams();
    const c = configOrExit(['--workers=3'], {}, io);
    assert.equal(typeof c === 'number' ? c : c.workers, 3);
  });
});
