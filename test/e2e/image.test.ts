// The controller's OCI image end to end: `make image` twice gives the same digest, containerd
// imports the archive, and the image runs under runc against the local control plane as two
// replicas with leader election: the leader walks a canary to Healthy, SIGTERM to its container
// hands the Lease over, a container whose caches never sync still stops on SIGTERM, and with no
// reachable API server it exits non-zero with one line.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { REPO_ROOT } from '../cluster/state.ts';
import { testNamespace, userKubeconfig } from '../cluster/testing.ts';
import { Containerd } from './support/containerd.ts';
import { ControllerProcess } from './support/controller.ts';
import {
  RuncContainers,
  imageTools,
  makeImage,
  run,
  runImage,
  unpackImage,
} from './support/runc.ts';
import type { ImageSummary, UnpackedImage } from './support/runc.ts';
import {
  createRollout,
  installCrds,
  patchStatus,
  phase,
  rolloutBody,
  setImage,
  split,
  waitFor,
  waitForRollout,
} from './support/rollouts.ts';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

type Lease = { spec?: { holderIdentity?: string } };
const LEASES = (ns: string) => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;

const work = mkdtempSync(join(tmpdir(), 'stepwise-image-e2e-'));
const tools = imageTools();
const containers = new RuncContainers(tools.runc, join(work, 'containers'));
let image: UnpackedImage;
let summary: ImageSummary;

before(installCrds);
// The run's own build (make e2e makes it once for every file), unpacked before the tests so a
// failed reproducibility check does not take the container tests down with it.
before(
  () => {
    summary = runImage();
    image = unpackImage(tools.crane, summary.archive, join(work, 'image'));
  },
  { timeout: 600_000 },
);
after(() => {
  containers.deleteAll();
  rmSync(work, { recursive: true, force: true });
});

describe('the controller image', () => {
  it(
    'make image twice: the same digest, a valid archive, under 60 MB compressed',
    { timeout: 600_000 },
    () => {
      const again = makeImage(join(work, 'second-build'));
      // The revision label and the timestamps come from HEAD: a commit during the run changes them.
      assert.equal(again.digest, summary.digest, 'same inputs, same manifest digest');
      assert.equal(again.imageId, summary.imageId, 'same config digest');
      const sha = (file: string) => run('sha256sum', [file]).split(' ')[0];
      assert.equal(sha(again.archive), sha(summary.archive), 'byte-identical archives');
      assert.match(summary.digest, /^sha256:[0-9a-f]{64}$/);
      assert.ok(summary.compressedBytes < 60e6, `${summary.compressedBytes} bytes compressed`);
      // crane re-reads every layer and checks its digests against the manifest and config.
      run(tools.crane, ['validate', '--tarball', summary.archive]);

      assert.deepEqual(image.config.Entrypoint, [
        '/nodejs/bin/node',
        '/app/dist/bundle/controller.mjs',
      ]);
      assert.equal(image.config.User, '65532:65532');
      assert.ok(image.config.Env?.includes('NODE_ENV=production'));
      for (const shell of ['bin/sh', 'bin/bash', 'usr/bin/sh']) {
        assert.ok(!existsSync(join(image.rootfs, shell)), `no ${shell} in the image`);
      }
      // The bundle carries its dependencies, and the licences that come with them.
      assert.ok(!existsSync(join(image.rootfs, 'app/node_modules')), 'no node_modules');
      assert.match(
        readFileSync(join(image.rootfs, 'app/dist/bundle/THIRD_PARTY_LICENSES.txt'), 'utf8'),
        /^== prom-client@\S+ \(Apache-2\.0\)$/m,
      );
      // Stepwise's own licence, as the label and package.json name it.
      const labels = image.config.Labels ?? {};
      assert.equal(labels['org.opencontainers.image.licenses'], 'Apache-2.0');
      assert.equal(
        readFileSync(join(image.rootfs, 'app/LICENSE'), 'utf8'),
        readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8'),
      );
      // Stamped at build time from the commit (never the clock): the labels say the same.
      assert.match(labels['org.opencontainers.image.revision'] ?? '', /^[0-9a-f]{40}(-dirty)?$/);
      assert.match(labels['org.opencontainers.image.created'] ?? '', /^\d{4}-\d\d-\d\dT[\d:]{8}Z$/);
    },
  );

  it(
    'containerd imports the archive under its tag, with the config built here',
    { timeout: 120_000 },
    async () => {
      const containerd = await Containerd.start(
        tools.containerd,
        tools.ctr,
        join(work, 'containerd'),
      );
      try {
        containerd.ctr('images', 'import', summary.archive);
        const images = containerd.ctr('images', 'ls', '--quiet').split('\n');
        assert.ok(images.includes(`docker.io/library/${summary.tag}`), images.join(', '));
        // A docker-format archive carries no manifest (containerd writes its own), but the
        // config, and so the image ID, is the one the build printed.
        const blobs = containerd.ctr('content', 'ls', '--quiet').split('\n');
        assert.ok(blobs.includes(summary.imageId), `${summary.imageId} in ${blobs.join(', ')}`);
      } finally {
        await containerd.stop();
      }
    },
  );

  it(
    'two replicas under runc: the leader walks a canary to Healthy, SIGTERM hands the Lease over',
    { timeout: 180_000 },
    async () => {
      const ns = await testNamespace('image-ha');
      const kubeconfig = process.env.KUBECONFIG ?? '';
      const replica = (id: string) =>
        new ControllerProcess({
          args: ['--leader-elect=true', `--lease-namespace=${ns}`, `--identity=${id}`],
          launcher: containers.launcher(id, image, { kubeconfig }),
        });
      const a = replica('image-a');
      await a.ready();
      await a.waitForLog((l) => l.msg === 'leader election: became leader');
      const b = replica('image-b');
      await b.ready();
      const leaseName = a.leaseName; // the replicas' instance's Lease (the same for both)
      await waitFor(
        leaseName + ' held by image-a',
        LEASES(ns),
        leaseName,
        (l: Lease) => l.spec?.holderIdentity === 'image-a',
      );
      assert.ok(!b.logs.some((l) => l.msg === 'leader election: became leader'), 'one leader');

      // The controller in the container is the image's non-root user, on the host's network.
      const status = readFileSync(`/proc/${containers.pid('image-a')}/status`, 'utf8');
      assert.match(status, /^Uid:\s+65532\s/m);
      const metrics = await (await fetch(`http://127.0.0.1:${a.metricsPort}/metrics`)).text();
      assert.match(metrics, /^stepwise_leader 1$/m);
      // The build it runs, as stamped into the bundle: the metric, the first log line.
      const labels = image.config.Labels ?? {};
      const revision = labels['org.opencontainers.image.revision'] ?? '';
      assert.ok(
        metrics.includes(
          `stepwise_build_info{version="${PACKAGE_VERSION}",revision="${revision}"} 1`,
        ),
        metrics,
      );
      const starting = a.logs.find((l) => l.msg === 'starting');
      assert.equal(starting?.version, PACKAGE_VERSION);
      assert.equal(starting?.revision, revision);
      assert.equal(starting?.buildDate, labels['org.opencontainers.image.created']);
      assert.equal((starting?.config as { identity?: string } | undefined)?.identity, 'image-a');

      await createRollout(
        ns,
        rolloutBody('web', {
          replicas: 2,
          strategy: { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
        }),
      );
      await waitForRollout(ns, 'web', 'Healthy under image-a', phase('Healthy'));
      await setImage(ns, 'web', 'app:2');
      const paused = await waitForRollout(
        ns,
        'web',
        'canary paused at 50%',
        phase('Paused', (r) => r.status?.currentStepIndex === 1),
      );
      assert.deepEqual(await split(ns, paused), [1, 1], '1 canary pod, 1 stable');
      await patchStatus(ns, 'web', { pauseConditions: null }); // kubectl stepwise promote
      await waitForRollout(
        ns,
        'web',
        'Healthy on app:2',
        phase('Healthy', (r) => r.status?.stableRS === r.status?.currentPodHash),
      );

      const stopped = Date.now();
      assert.equal(await a.stop(), 0, 'runc kill TERM: a graceful stop, exit 0');
      assert.ok(a.logs.some((l) => l.msg === 'leader election: released the lease'));
      await waitFor(
        leaseName + ' held by image-b',
        LEASES(ns),
        leaseName,
        (l: Lease) => l.spec?.holderIdentity === 'image-b',
        10_000,
      );
      const handover = Date.now() - stopped;
      assert.ok(handover < 5_000, `image-b took over ${handover} ms after the SIGTERM`);
      process.stderr.write(`# Lease handed over ${handover} ms after runc kill TERM\n`);

      await setImage(ns, 'web', 'app:3');
      await waitForRollout(ns, 'web', 'canary paused under image-b', phase('Paused'));
      await patchStatus(ns, 'web', { pauseConditions: null });
      await waitForRollout(
        ns,
        'web',
        'Healthy on app:3 under image-b',
        phase('Healthy', (r) => r.status?.stableRS === r.status?.currentPodHash),
      );
      // SIGUSR2 asks for a heap snapshot; the read-only root has nowhere to put it, and that
      // must not take the controller down.
      containers.runc('kill', 'image-b', 'USR2');
      await b.waitForLog((l) => l.msg === 'heap snapshot not written', 20_000);
      assert.equal(await b.stop(), 0);
      await waitFor(
        leaseName + ' released',
        LEASES(ns),
        leaseName,
        (l: Lease) => !l.spec?.holderIdentity,
        10_000,
      );
    },
  );

  it(
    'SIGTERM stops a container whose caches never sync (the controller is PID 1)',
    { timeout: 60_000 },
    async () => {
      // A user with no RBAC: every list is forbidden, so the caches never sync.
      const kubeconfig = await userKubeconfig('image-no-rbac');
      const c = new ControllerProcess({
        args: ['--leader-elect=false'],
        launcher: containers.launcher('image-unsynced', image, { kubeconfig }),
      });
      await c.waitForLog((l) => l.msg === 'internal server listening');
      await c.waitForLog((l) => /forbidden/i.test(JSON.stringify(l)));
      const stopped = Date.now();
      assert.equal(await c.stop(), 0);
      assert.ok(Date.now() - stopped < 5_000, 'stopped at once, not after a kill');
    },
  );

  it(
    'no reachable API server: exits non-zero with one clear line',
    { timeout: 60_000 },
    async () => {
      const closedPort = await freePort();
      const kubeconfig = join(work, 'unreachable.kubeconfig');
      writeFileSync(
        kubeconfig,
        [
          'apiVersion: v1',
          'kind: Config',
          `clusters: [{name: c, cluster: {server: "https://127.0.0.1:${closedPort}", insecure-skip-tls-verify: true}}]`,
          'users: [{name: u, user: {token: none}}]',
          'contexts: [{name: c, context: {cluster: c, user: u}}]',
          'current-context: c',
        ].join('\n'),
      );
      const c = new ControllerProcess({
        args: ['--leader-elect=true', '--log-level=error'],
        launcher: containers.launcher('image-unreachable', image, { kubeconfig }),
      });
      const code = await c.exited;
      assert.equal(code, 1);
      const lines = c.logs.map((l) => (l.level === 'raw' ? l.msg : JSON.stringify(l)));
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(
        lines[0] ?? '',
        new RegExp(
          `^stepwise-controller: cannot reach the API server at https://127\\.0\\.0\\.1:${closedPort}: connect ECONNREFUSED 127\\.0\\.0\\.1:${closedPort}`,
        ),
      );
    },
  );
});

/** A loopback port nothing listens on (taken, then given back). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
