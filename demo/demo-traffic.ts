/**
 * The demo's traffic act: a canary whose traffic a Gateway API HTTPRoute splits (Gateway API's
 * real CRDs, installed before the controller starts), the weights at each step, and a GitOps
 * tool without our settings force-applying Git's route mid-canary: the controller puts the
 * weights back and the rollout goes on where it was.
 */
import { installRouterCrds } from '../test/cluster/router-crds.ts';
import { bold, capture, expect, run, say, section, seconds, setRolloutImage } from './demo-kit.ts';

const NAME = 'shop';
const FILE = 'deploy/examples/traffic.yaml';
const WEIGHTS =
  'custom-columns=HTTPROUTE:.metadata.name,STABLE:.spec.rules[0].backendRefs[0].name,WEIGHT:.spec.rules[0].backendRefs[0].weight,CANARY:.spec.rules[0].backendRefs[1].name,WEIGHT:.spec.rules[0].backendRefs[1].weight';

/** Before the controller starts: it watches the router kinds the cluster serves. */
export async function installGatewayApi(): Promise<void> {
  say("Gateway API's own CRDs (HTTPRoute, …), read from its Go module into the cache:");
  await installRouterCrds('standard');
}

export async function trafficAct(ns: string, section_: string): Promise<void> {
  const inNs = (...args: string[]): Promise<number> => run('kubectl', ['-n', ns, ...args]);
  const stepwise = (...args: string[]): Promise<number> =>
    run('kubectl', ['stepwise', '-n', ns, ...args]);
  const showRoute = (): Promise<number> => inNs('get', 'httproute', NAME, '-o', WEIGHTS);
  const waitStep = (index: number): Promise<number> =>
    inNs(
      'wait',
      `swro/${NAME}`,
      `--for=jsonpath={.status.currentStepIndex}=${index}`,
      '--timeout=60s',
    );
  const canaryWeight = (): Promise<string> =>
    capture('kubectl', [
      '-n',
      ns,
      'get',
      'httproute',
      NAME,
      '-o',
      'jsonpath={.spec.rules[0].backendRefs[1].weight}',
    ]);

  section(`${section_} Traffic on a Gateway API HTTPRoute, and a GitOps re-apply undone`);
  say(
    `${FILE}: two Services, an HTTPRoute sending everything to shop-stable, and Rollout shop`,
    'with trafficRouting.gatewayAPI. Applied as Argo CD applies (server-side, argocd-controller):',
  );
  await inNs('apply', '--server-side', '--field-manager=argocd-controller', '-f', FILE);
  await stepwise('status', NAME, '--timeout', '60s');
  await showRoute();
  say('A new image: the canary gets 1 pod of 4 (the stable keeps all 4: the route, not the pods,');
  say('splits traffic) and 20 % of the requests once that pod is ready:');
  await setRolloutImage(ns, NAME, 'registry.example/shop:2.0');
  await waitStep(1);
  await showRoute();
  await stepwise('promote', NAME);
  await waitStep(3);
  say('Promoted: 50 %.');
  await showRoute();
  say(
    'Now a GitOps tool without our ignoreDifferences settings syncs the Services and the route',
    'from Git, which still says 100/0, with force (as Flux does by default):',
  );
  const resetAt = Date.now();
  await inNs(
    'apply',
    '--server-side',
    '--force-conflicts',
    '--field-manager=kustomize-controller',
    '-l',
    'demo-part=routing',
    '-f',
    FILE,
  );
  await inNs(
    'wait',
    `httproute/${NAME}`,
    '--for=jsonpath={.spec.rules[0].backendRefs[1].weight}=50',
    '--timeout=30s',
  );
  const back = Date.now() - resetAt;
  say(
    bold(
      `The controller put the weights back; kubectl saw 50 % again ${seconds(back)} after the apply:`,
    ),
  );
  await showRoute();
  expect((await canaryWeight()) === '50', 'the canary weight is not 50 after the reset');
  say(
    'The rollout did not move back or abort; promote takes it to the end: 100 % on the new pods,',
  );
  say('the stable Service switched to them, and the weight back on shop-stable:');
  await stepwise('promote', NAME);
  await stepwise('status', NAME, '--timeout', '60s');
  await showRoute();
  await inNs(
    'get',
    'svc',
    '-l',
    '',
    '-o',
    'custom-columns=SERVICE:.metadata.name,SELECTOR:.spec.selector',
  );
}
