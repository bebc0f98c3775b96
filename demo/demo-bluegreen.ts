/**
 * The demo's blue-green act: a Rollout with an active and a preview Service. A new image comes
 * up beside the old one, the preview Service is switched to it (and its endpoints checked: the
 * new pods only), the Rollout pauses for a person (BlueGreenPause), `kubectl stepwise promote`
 * switches the active Service (the SwitchService Event), and the old version keeps its pods for
 * scaleDownDelaySeconds before it goes to zero. Each stage is printed as the watches see it.
 */
import { BlueGreenWatch, type BlueGreenState } from './demo-bluegreen-watch.ts';
import {
  DemoError,
  bold,
  expect,
  run,
  say,
  section,
  seconds,
  setRolloutImage,
  streamLines,
} from './demo-kit.ts';

const NAME = 'cart';
const FILE = 'demo/bluegreen.yaml';
const ACTIVE = 'cart-active';
const PREVIEW = 'cart-preview';
const REPLICAS = 3;
const SCALE_DOWN_DELAY_S = 10;

const selects = (s: BlueGreenState, service: string): string => s.services.get(service)?.hash ?? '';

export async function blueGreenAct(ns: string, act: string): Promise<void> {
  const inNs = (...args: string[]): Promise<number> => run('kubectl', ['-n', ns, ...args]);
  const stepwise = (...args: string[]): Promise<number> =>
    run('kubectl', ['stepwise', '-n', ns, ...args]);
  const showPods = (): Promise<number> =>
    inNs('get', 'pods', '-l', `app=${NAME}`, '-L', 'role,rollouts-pod-template-hash');
  const showEndpoints = (): Promise<number> =>
    inNs(
      'get',
      'endpointslices',
      '-l',
      `kubernetes.io/service-name in (${ACTIVE},${PREVIEW})`,
      '-o',
      'custom-columns=SERVICE:.metadata.labels.kubernetes\\.io/service-name,PODS:.endpoints[*].targetRef.name',
    );

  section(`${act} Blue-green: a preview, a promote, the switch, the old version kept 10 s`);
  say(
    `${FILE}: Services ${ACTIVE} (what users reach) and ${PREVIEW} (what testers reach), and`,
    `Rollout ${NAME}: ${REPLICAS} pods of registry.example/cart:1.0 and strategy.blueGreen with`,
    'autoPromotionEnabled: false (wait for a person before the switch) and scaleDownDelaySeconds:',
    `${SCALE_DOWN_DELAY_S} (keep the old pods that long after it, for an instant rollback). The`,
    'time-stamped lines come from watches on the Rollout, its ReplicaSets, Services and Events,',
    'printed as they happen.',
  );
  const watch = new BlueGreenWatch(ns, NAME);
  watch.start();
  try {
    await inNs('apply', '-f', FILE);
    const first = await watch.until('Healthy first deploy', (s) => {
      const stable = s.rollout?.stableRS ?? '';
      return (
        s.rollout?.phase === 'Healthy' &&
        stable !== '' &&
        selects(s, ACTIVE) === stable &&
        selects(s, PREVIEW) === stable
      );
    });
    const blue = first.rollout?.stableRS ?? '';
    say(
      'A first deploy has nothing to preview: stable at once, no pause, both Services on 1.0.',
      '',
      'Now cart:2.0. The new ReplicaSet comes up beside the old one (blue-green runs both at full',
      'size), the preview Service follows once the new pods are available, and the Rollout waits:',
    );
    await setRolloutImage(ns, NAME, 'registry.example/cart:2.0');
    const paused = await watch.until(
      'BlueGreenPause',
      (s) =>
        s.rollout?.phase === 'Paused' &&
        s.rollout.pauses.includes('BlueGreenPause') &&
        s.rollout.currentPodHash !== blue,
    );
    const green = paused.rollout?.currentPodHash ?? '';
    const greenRS = paused.replicaSets.get(green);
    expect(
      selects(paused, PREVIEW) === green && selects(paused, ACTIVE) === blue,
      `paused with ${PREVIEW} on ${watch.describe(selects(paused, PREVIEW))} and ${ACTIVE} on ` +
        `${watch.describe(selects(paused, ACTIVE))}; expected the preview on the new version and ` +
        'the active still on the old one',
    );
    expect(
      greenRS?.available === REPLICAS,
      `paused with ${greenRS?.available ?? 0}/${REPLICAS} new pods available`,
    );
    say(
      bold(
        `Paused (BlueGreenPause): ${PREVIEW} selects ${watch.describe(green)}, ${ACTIVE} still ` +
          `${watch.describe(blue)}.`,
      ),
      'The check a tester relies on: the preview endpoints are the new pods and only those, the',
      'active endpoints the old ones (EndpointSlices, written by Kubernetes from the selectors):',
    );
    await endpointsOf(ns, PREVIEW, green);
    await endpointsOf(ns, ACTIVE, blue);
    await showEndpoints();
    say('The new pods carry role=preview (previewMetadata), the serving ones role=active:');
    await showPods();
    await stepwise('get', 'rollout', NAME);

    say('The preview looks right: promote. The active Service switches to the new pods at once:');
    await stepwise('promote', NAME);
    const switched = await watch.until(
      `${ACTIVE} on the new version`,
      (s) => selects(s, ACTIVE) === green,
    );
    const switchedAt = switched.services.get(ACTIVE)?.since ?? Date.now();
    const done = await watch.until(
      'Healthy with the new version stable and the SwitchService Event',
      (s) =>
        s.rollout?.phase === 'Healthy' &&
        s.rollout.stableRS === green &&
        s.events.some((e) => e.reason === 'SwitchService' && isSwitch(e.message, ACTIVE, green)),
    );
    const event = done.events.find(
      (e) => e.reason === 'SwitchService' && isSwitch(e.message, ACTIVE, green),
    );
    say(bold(`SwitchService: ${event?.message ?? ''}`));
    await endpointsOf(ns, ACTIVE, green);
    await showEndpoints();
    say(
      `1.0 keeps its ${REPLICAS} pods, no longer selected, until its scale-down-deadline: within that`,
      'time `kubectl stepwise undo` would switch back without waiting for pods:',
    );
    await inNs(
      'get',
      'rs',
      '-l',
      `app=${NAME}`,
      '-o',
      'custom-columns=REPLICASET:.metadata.name,IMAGE:.spec.template.spec.containers[0].image,' +
        'DESIRED:.spec.replicas,AVAILABLE:.status.availableReplicas,' +
        'SCALE-DOWN-DEADLINE:.metadata.annotations.stepwise\\.dev/scale-down-deadline',
    );
    const scaledDown = await watch.until(
      'the old ReplicaSet scaled to zero',
      (s) => s.replicaSets.get(blue)?.desired === 0,
      (SCALE_DOWN_DELAY_S + 30) * 1000,
    );
    const after = (scaledDown.replicaSets.get(blue)?.resizedAt ?? 0) - switchedAt;
    say(
      bold(
        `1.0 went to zero ${seconds(after)} after the switch (scaleDownDelaySeconds: ` +
          `${SCALE_DOWN_DELAY_S}).`,
      ),
    );
    expect(
      after >= (SCALE_DOWN_DELAY_S - 2) * 1000,
      `the old version went to zero ${seconds(after)} after the switch, before its delay`,
    );
    await showPods();
  } finally {
    watch.stop();
  }
}

/** "Switched selector for service 'cart-active' from 'a' to 'b'" with this service and hash. */
const isSwitch = (message: string, service: string, hash: string): boolean =>
  message.includes(`service '${service}'`) && message.endsWith(`to '${hash}'`);

/** Waits until the Service's EndpointSlices list exactly the pods of `hash` (REPLICAS of them). */
function endpointsOf(ns: string, service: string, hash: string): Promise<void> {
  let last = '';
  return new Promise((resolve, reject) => {
    const stream = streamLines(
      'kubectl',
      [
        '-n',
        ns,
        'get',
        'endpointslices',
        '-l',
        `kubernetes.io/service-name=${service}`,
        '--watch',
        '-o',
        'jsonpath={.endpoints[*].targetRef.name}{"\\n"}',
      ],
      (line) => {
        last = line;
        const pods = line.split(' ').filter((p) => p !== '');
        if (pods.length === REPLICAS && pods.every((p) => p.startsWith(`${NAME}-${hash}-`))) {
          clearTimeout(timer);
          stream.stop();
          resolve();
        }
      },
    );
    const timer = setTimeout(() => {
      stream.stop();
      reject(
        new DemoError(
          `${service}'s endpoints are not the ${REPLICAS} pods of ${hash} after 30 s: ${last || 'none'}`,
        ),
      );
    }, 30_000);
  });
}
