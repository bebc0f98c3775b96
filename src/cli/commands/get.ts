/**
 * `get rollout NAME [--watch] [--timeout-seconds N] [--no-color]` (also `get ro`, `get swro`):
 * the header and tree. --watch follows the Rollout (by name) and the ReplicaSets and Pods that
 * carry the pod-template-hash label, re-rendering at most ~4 times a second.
 */
import type { Command } from 'commander';
import { POD_TEMPLATE_HASH_LABEL } from '../../api/keys.ts';
import type { AnalysisRun } from '../../api/analysis.ts';
import type { Rollout } from '../../api/rollout.ts';
import type { KubeClient } from '../client.ts';
import { EXIT_INTERRUPTED, type CliDeps } from '../context.ts';
import { CliError, httpStatusOf } from '../errors.ts';
import { ansiColor, noColor, wantColor, type Paint } from '../render/color.ts';
import { renderAnalysisRun } from '../render/analysis.ts';
import { rolloutInfo } from '../render/info.ts';
import type { PodLike, ReplicaSetLike, WorkloadLike } from '../render/objects.ts';
import { renderRollout } from '../render/tree.ts';
import { LiveView } from '../terminal.ts';
import { Mirror, Throttle } from '../watch.ts';
import { printObject } from '../render/output.ts';
import { workloadPlural } from '../workload-client.ts';
import {
  ANALYSIS_RUN,
  outputOption,
  ROLLOUT,
  type PrintFlags,
  clientFor,
  isRolloutWord,
  nameArgument,
  retryNotice,
  toError,
  type Registrar,
} from './common.ts';
import { rolloutSource } from './status.ts';
import { sanitised } from '../sanitise.ts';

export interface GetOptions {
  watch: boolean;
  /** ms; 0 = until interrupted */
  timeoutMs: number;
  color: boolean;
}

export async function runGet(
  deps: CliDeps,
  client: KubeClient,
  namespace: string,
  name: string,
  opts: GetOptions,
): Promise<number> {
  const paint: Paint = wantColor(deps.env, opts.color, !!deps.out.isTTY) ? ansiColor : noColor;
  const selector = POD_TEMPLATE_HASH_LABEL;
  if (!opts.watch) {
    const ro = await client.getRollout(namespace, name);
    const [rs, pods, runs, workload] = await Promise.all([
      client.listReplicaSets(namespace, selector),
      client.listPods(namespace, selector),
      client.listAnalysisRuns(namespace),
      workloadOf(client, namespace, ro),
    ]);
    const info = rolloutInfo(
      sanitised(ro),
      sanitised(rs.items),
      sanitised(pods.items),
      deps.now(),
      sanitised(runs.items),
      workload === undefined ? undefined : sanitised(workload),
    );
    deps.out.write(renderRollout(info, { paint, now: deps.now() }));
    return 0;
  }
  return watchRollout(deps, client, namespace, name, opts, paint);
}

/** The object the Rollout's workloadRef names; undefined without one, or when it is not found
 *  (the header says so). */
async function workloadOf(
  client: KubeClient,
  namespace: string,
  ro: Rollout,
): Promise<WorkloadLike | undefined> {
  const ref = ro.spec.workloadRef;
  if (ref === undefined) return undefined;
  try {
    return await client.getWorkload(namespace, ref);
  } catch (err) {
    if (httpStatusOf(err) === 404) return undefined;
    throw err;
  }
}

async function watchRollout(
  deps: CliDeps,
  client: KubeClient,
  namespace: string,
  name: string,
  opts: GetOptions,
  paint: Paint,
): Promise<number> {
  const first = await client.getRollout(namespace, name); // one-line "not found" / "forbidden"
  const selector = POD_TEMPLATE_HASH_LABEL;
  const view = new LiveView(deps.out);
  let finished = false;
  let settle: (r: number | Error) => void = () => undefined;
  const outcome = new Promise<number>((resolve, reject) => {
    settle = (r) => (r instanceof Error ? reject(r) : resolve(r));
  });
  const finish = (r: number | Error): void => {
    finished = true;
    settle(r);
  };
  const onRetry = retryNotice(deps);
  const render = (): void => {
    if (finished || !ready) return;
    const ro = rollouts.values[0];
    if (!ro) {
      finish(new CliError(`rollout "${name}" was deleted from namespace "${namespace}"`));
      return;
    }
    const now = deps.now();
    // One sanitised snapshot per render: every string the tree shows comes from it.
    const info = rolloutInfo(
      sanitised(ro),
      sanitised(replicaSets.values),
      sanitised(pods.values),
      now,
      sanitised(runs.values),
      workloads?.values[0] === undefined ? undefined : sanitised(workloads.values[0]),
    );
    const key = renderRollout(info, { now, showAge: false });
    view.update(renderRollout(info, { paint, now }), key);
  };
  const throttle = new Throttle(render, 250, () => deps.now());
  const onChange = (): void => throttle.request();
  const watchSource = <T>(
    resource: 'replicasets' | 'pods' | 'analysisruns',
    list: () => Promise<{ items: T[]; resourceVersion: string }>,
    labelSelector: string | undefined = selector,
  ) => ({
    list,
    watch: (resourceVersion: string, on: (type: string, object: unknown) => void) =>
      client.watch(resource, namespace, { labelSelector, resourceVersion }, on),
  });
  const rollouts = new Mirror<Rollout>(rolloutSource(client, namespace, name), {
    onChange,
    onRetry,
  });
  const replicaSets = new Mirror<ReplicaSetLike>(
    watchSource('replicasets', () => client.listReplicaSets(namespace, selector)),
    { onChange, onRetry },
  );
  const pods = new Mirror<PodLike>(
    watchSource('pods', () => client.listPods(namespace, selector)),
    { onChange, onRetry },
  );
  const runs = new Mirror<AnalysisRun>(
    watchSource('analysisruns', () => client.listAnalysisRuns(namespace), undefined),
    { onChange, onRetry },
  );
  // The referenced Deployment, followed too: a migration shows its replicas going to 0.
  const ref = first.spec.workloadRef;
  const workloads =
    ref === undefined
      ? undefined
      : new Mirror<WorkloadLike>(
          {
            list: () => client.listWorkload(namespace, ref),
            watch: (resourceVersion, on) =>
              client.watch(
                workloadPlural(ref),
                namespace,
                { fieldSelector: `metadata.name=${ref.name}`, resourceVersion },
                on,
              ),
          },
          { onChange, onRetry },
        );
  let ready = false;
  const timer = opts.timeoutMs > 0 ? setTimeout(() => finish(0), opts.timeoutMs) : undefined;
  // On a terminal, ages and scale-down delays tick: redraw once a second.
  const ticker = view.tty ? setInterval(onChange, 1000) : undefined;
  const stopInterrupt = deps.onInterrupt(() => finish(EXIT_INTERRUPTED));
  try {
    const mirrors = [rollouts, replicaSets, pods, runs, ...(workloads ? [workloads] : [])];
    Promise.all(mirrors.map((m) => m.start())).then(
      () => {
        ready = true;
        render();
      },
      (err: unknown) => finish(toError(err)),
    );
    return await outcome;
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    throttle.cancel();
    stopInterrupt();
    for (const m of [rollouts, replicaSets, pods, runs, workloads]) m?.stop();
    view.close();
  }
}

export const registerGet: Registrar = (program, deps, act) => {
  const get = program
    .command('get')
    .description('Show a rollout as a tree of its ReplicaSets and Pods');
  get
    .command('rollout')
    .aliases(['ro', 'swro', 'rollouts'])
    .description(
      'Show a rollout: status, strategy (steps and weights, or active and preview Services), images, revisions, ReplicaSets, Pods',
    )
    .addArgument(nameArgument('rollout'))
    .option('-w, --watch', 'keep watching and re-render on every change')
    .option('--timeout-seconds <n>', 'stop watching after this many seconds (0 = never)', '0')
    .option('--no-color', 'do not colour the output')
    .addOption(outputOption())
    .option('--show-managed-fields', 'keep metadata.managedFields in -o json|yaml')
    .action(
      act(
        async (
          name: string,
          opts: { watch?: boolean; timeoutSeconds: string; color: boolean } & PrintFlags,
          cmd: Command,
        ) => {
          if (opts.output !== undefined && opts.watch) {
            throw new CliError('--watch cannot be combined with -o; use one or the other');
          }
          const seconds = Number(opts.timeoutSeconds);
          if (!Number.isFinite(seconds) || seconds < 0) {
            throw new CliError(
              `invalid --timeout-seconds "${opts.timeoutSeconds}": use a number of seconds`,
            );
          }
          const { client, namespace } = await clientFor(deps, cmd);
          if (opts.output !== undefined) {
            const ro = await client.getRollout(namespace, name);
            deps.out.write(await printObject(ro, ROLLOUT, opts.output, opts));
            return 0;
          }
          return runGet(deps, client, namespace, name, {
            watch: !!opts.watch,
            timeoutMs: seconds * 1000,
            color: opts.color,
          });
        },
      ),
    );
  get
    .command('analysisrun')
    .aliases(['ar', 'analysisruns'])
    .description('Show an AnalysisRun: phase, args, and each metric with its latest measurements')
    .addArgument(nameArgument('AnalysisRun'))
    .option('--no-color', 'do not colour the output')
    .addOption(outputOption())
    .option('--show-managed-fields', 'keep metadata.managedFields in -o json|yaml')
    .action(
      act(async (name: string, opts: { color: boolean } & PrintFlags, cmd: Command) => {
        const { client, namespace } = await clientFor(deps, cmd);
        const run = await client.getAnalysisRun(namespace, name);
        if (opts.output !== undefined) {
          deps.out.write(await printObject(run, ANALYSIS_RUN, opts.output, opts));
          return 0;
        }
        const paint = wantColor(deps.env, opts.color, !!deps.out.isTTY) ? ansiColor : noColor;
        deps.out.write(renderAnalysisRun(sanitised(run), deps.now(), paint));
        return 0;
      }),
    );
  // `get NAME` alone is not a kind: point at the right form.
  get
    .usage('rollout <name> [options]')
    .argument('[kind]')
    .allowExcessArguments()
    .action((kind: string | undefined) => {
      throw new CliError(
        kind && !isRolloutWord(kind)
          ? `unknown resource type "${kind}": use 'get rollout NAME' or 'get analysisrun NAME'`
          : "missing rollout name: use 'get rollout NAME'",
      );
    });
};
