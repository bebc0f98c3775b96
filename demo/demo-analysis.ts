/**
 * The demo's last act: a release judged by a real Prometheus and rolled back by it. The demo
 * app stands in for the Rollout's pods (kwok runs no containers): it serves prom-client HTTP
 * metrics per pod-template hash, and the demo makes the new version's hash answer 30 % errors,
 * as a bad build would. Prometheus scrapes it every second; the analysis step asks Prometheus
 * about the canary's hash and the controller aborts the update on the measured value.
 */
import { DemoApp } from '../test/demo-app/app.ts';
import { startPrometheus } from '../test/prometheus/server.ts';
import { bold, capture, expect, onCleanup, run, say, section, seconds } from './demo-kit.ts';

const NAME = 'api';

export interface AnalysisStage {
  readonly app: DemoApp;
  readonly prometheusUrl: string;
}

/** Before the controller starts: Prometheus and the app; the controller reads the address. */
export async function startMetrics(): Promise<AnalysisStage> {
  const app = new DemoApp();
  const target = await app.listen();
  const prometheus = await startPrometheus({ scrapeTargets: [{ job: 'api', target }] });
  onCleanup(async () => {
    await prometheus.stop();
    await app.close();
  });
  process.env['STEPWISE_PROMETHEUS_ADDRESS'] = prometheus.url;
  return { app, prometheusUrl: prometheus.url };
}

export async function analysisAct(ns: string, stage: AnalysisStage): Promise<void> {
  const inNs = (...args: string[]): Promise<number> => run('kubectl', ['-n', ns, ...args]);
  const field = (path: string): Promise<string> =>
    capture('kubectl', ['-n', ns, 'get', 'swro', NAME, '-o', `jsonpath={${path}}`]);
  const stepwise = (...args: string[]): Promise<number> =>
    run('kubectl', ['stepwise', '-n', ns, ...args]);

  section('8. A bad release, judged by Prometheus and rolled back on its own');
  say(
    `A real Prometheus (${stage.prometheusUrl}, built from its Go module into the cache) scrapes`,
    'a small app serving prom-client HTTP metrics for each pod-template hash, standing in for the',
    "pods. deploy/examples/analysis.yaml: an AnalysisTemplate asking for the canary's success",
    'rate, and Rollout api whose second step is that analysis:',
  );
  await inNs('apply', '-f', 'deploy/examples/analysis.yaml');
  await stepwise('status', NAME, '--timeout', '60s');
  const stable = await field('.status.stableRS');
  stage.app.set(stable, { errorRate: 0.001, latencyMs: 30 });
  say(`The stable pods (hash ${stable}) answer 99.9 % of requests well. Now api:2.0, whose pods`);
  say('answer 30 % of requests with HTTP 500:');
  const image = [
    {
      op: 'replace',
      path: '/spec/template/spec/containers/0/image',
      value: 'registry.example/api:2.0',
    },
  ];
  await inNs('patch', 'swro', NAME, '--type=json', '-p', JSON.stringify(image));
  const started = Date.now();
  let canary = '';
  // The controller names the new pod-template hash within a pass or two.
  while (canary === '' || canary === stable) {
    expect(Date.now() - started < 30_000, 'the controller did not start the update within 30 s');
    canary = await field('.status.currentPodHash');
  }
  stage.app.set(canary, { errorRate: 0.3, latencyMs: 30 });
  say(
    `The canary's hash is ${canary}. At the analysis step the controller creates an AnalysisRun`,
    'and waits for its verdict:',
  );
  await inNs('wait', `swro/${NAME}`, '--for=jsonpath={.status.abort}=true', '--timeout=60s');
  say(bold(`Aborted ${seconds(Date.now() - started)} after the new image, with no one watching:`));
  const message = await field('.status.message');
  say(message);
  expect(/success-rate/.test(message), `the abort does not name the metric: ${message}`);
  const runName = await field('.status.canary.currentStepAnalysisRunStatus.name');
  await stepwise('get', 'rollout', NAME);
  say('The run in detail: the condition, and each measured value:');
  await stepwise('get', 'analysisrun', runName);
  say('The stable ReplicaSet is back at 4 pods; the canary goes to 0 (no Services to hold it):');
  await inNs(
    'wait',
    'rs',
    '-l',
    `rollouts-pod-template-hash=${stable}`,
    '--for=jsonpath={.status.readyReplicas}=4',
    '--timeout=60s',
  );
  await inNs('get', 'rs', '-l', `app=${NAME}`);
}
