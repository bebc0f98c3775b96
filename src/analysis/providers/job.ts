/**
 * The `job` provider: a measurement is a Kubernetes Job, owned by the AnalysisRun and named after
 * the run, metric and measurement (`<run>.<metric>.<n>`, so a restarted controller finds the Job
 * it made rather than making a second). Asynchronous: `measure` creates the Job and leaves the
 * measurement Running; `resume` reads it: Complete is Successful, Failed is Failed, pods that
 * cannot pull their image are Inconclusive at once (Argo v1.10), anything else keeps running.
 * `terminate` deletes the Job. Only a Job the run owns (ownerReferences uid) counts: one someone
 * else made under the predictable name is an Error, never the result. The namespace is always
 * the run's, never read back from status (which `analysisruns/status` writers could point
 * elsewhere). Job events wake the run (the controller watches our Jobs), so the
 * measurement has no `resumeAt`: it is resumed on every pass (and polled every 10 s in case an
 * event is lost). A new Job deletes the metric's Jobs older than the measurements the run keeps.
 */
import { createHash } from 'node:crypto';
import type { Measurement, Metric } from '../../api/index.ts';
import { API_VERSION, ANALYSIS_RUN_KIND } from '../../api/index.ts';
import { controllerOwnerReference } from '../../api/owner-reference.ts';
import { isAlreadyExists } from '../../kube/errors.ts';
import type { KubeApi } from '../../kube/kube-api.ts';
import type { KubeObject } from '../../kube/objects.ts';
import { Resources, watched } from '../../kube/resources.ts';
import type { ProviderOutcome } from '../evaluate/index.ts';
import type {
  AnalysisProvider,
  MeasureContext,
  PendingOutcome,
  ProviderModule,
} from './provider.ts';

/** On every Job we create: selects them for the controller's Job informer. */
export const JOB_RUN_LABEL = 'analysis.stepwise.dev/run';
export const JOB_METRIC_LABEL = 'analysis.stepwise.dev/metric';
/** The measurement's number (`<n>` of the name, which a hash may hide): orders old Jobs. */
export const JOB_MEASUREMENT_LABEL = 'analysis.stepwise.dev/measurement';
/** Measurement metadata key naming the Job (its namespace is always the run's). */
export const JOB_NAME_KEY = 'job-name';
const MAX_NAME = 63;
const IMAGE_PULL_ERRORS = new Set(['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName']);

interface JobObject extends KubeObject {
  readonly status?: {
    readonly conditions?: readonly {
      type?: string;
      status?: string;
      message?: string;
      reason?: string;
    }[];
  };
}
interface PodObject extends KubeObject {
  readonly status?: {
    readonly containerStatuses?: readonly {
      state?: { waiting?: { reason?: string; message?: string } };
    }[];
  };
}

/** `<run>.<metric>.<n>`, or a prefix of it and a hash when that is over 63 characters. */
export function jobName(run: string, metric: string, index: number): string {
  const full = `${run}.${metric}.${index}`;
  if (full.length <= MAX_NAME) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 10);
  return `${full.slice(0, MAX_NAME - 11).replace(/[.-]+$/, '')}-${hash}`;
}

/** Label values are at most 63 characters: a long run name is shortened the same way. */
const labelValue = (value: string): string =>
  value.length <= MAX_NAME ? value : jobName(value, '', 0).replace(/\.+/g, '-');

/** Asynchronous: each call only creates or reads a Job, so only the shell's cap on one call
 *  applies. The controller watches our Jobs (JOB_RUN_LABEL); a pass
 *  lists a Job's pods for image pull errors. */
export const job: ProviderModule<'job'> = {
  name: 'job',
  matches: (metric) => metric.provider.job !== undefined,
  timeoutMs: () => undefined,
  kinds: [watched(Resources.Job, 'create', 'delete'), { type: Resources.Pod, verbs: ['list'] }],
  create: ({ api }) => jobProvider(api),
};

export function jobProvider(api: KubeApi): AnalysisProvider {
  return {
    async measure(metric: Metric, ctx: MeasureContext): Promise<ProviderOutcome | PendingOutcome> {
      const spec = metric.provider.job;
      if (spec === undefined) return { ok: false, message: 'metric has no job provider' };
      const name = jobName(ctx.run.name, metric.name, ctx.index);
      const body: KubeObject & { spec: unknown } = {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name,
          namespace: ctx.namespace,
          labels: {
            ...spec.metadata?.labels,
            [JOB_RUN_LABEL]: labelValue(ctx.run.name),
            [JOB_METRIC_LABEL]: labelValue(metric.name),
            [JOB_MEASUREMENT_LABEL]: String(ctx.index),
          },
          ...(spec.metadata?.annotations ? { annotations: { ...spec.metadata.annotations } } : {}),
          ownerReferences: [
            controllerOwnerReference({
              apiVersion: API_VERSION,
              kind: ANALYSIS_RUN_KIND,
              metadata: ctx.run,
            }),
          ],
        },
        spec: spec.spec,
      };
      try {
        await api.create(body);
      } catch (err) {
        if (!isAlreadyExists(err)) {
          return { ok: false, message: `cannot create Job ${name}: ${message(err)}` };
        }
        // Ours if made before a restart, or by a pass whose status write was lost; anyone's
        // otherwise, since the name is predictable.
        const found = await readJob(api, ctx, name);
        if (!found.ok) return found;
        if (found.job !== undefined && !ownedByRun(found.job, ctx)) return notOurs(ctx, name);
      }
      await collectOldJobs(api, ctx, metric.name);
      return pending(name);
    },

    async resume(_metric, inFlight, ctx): Promise<ProviderOutcome | PendingOutcome> {
      const name = inFlight.metadata?.[JOB_NAME_KEY];
      if (name === undefined) return { ok: false, message: 'measurement names no Job' };
      const found = await readJob(api, ctx, name);
      if (!found.ok) return found;
      const job = found.job;
      if (job === undefined) return { ok: false, message: `Job ${name} was deleted` };
      // Deleted and made again by someone else while the measurement ran.
      if (!ownedByRun(job, ctx)) return notOurs(ctx, name);
      const done = (job.status?.conditions ?? []).find(
        (c) => (c.type === 'Complete' || c.type === 'Failed') && c.status === 'True',
      );
      const meta = { [JOB_NAME_KEY]: name };
      if (done?.type === 'Complete') {
        return { ok: true, result: true, value: 'Complete', metadata: meta, phase: 'Successful' };
      }
      if (done?.type === 'Failed') {
        const why = [done.reason, done.message].filter(Boolean).join(': ');
        return {
          ok: true,
          result: false,
          value: 'Failed',
          metadata: meta,
          phase: 'Failed',
          message: `Job ${name} failed${why ? ` (${why})` : ''}`,
        };
      }
      const stuck = await imagePullError(api, ctx.namespace, name);
      if (stuck !== undefined) {
        return {
          ok: true,
          result: false,
          value: stuck,
          metadata: meta,
          phase: 'Inconclusive',
          message: `Job ${name}: a pod cannot pull its image (${stuck})`,
        };
      }
      return pending(name);
    },

    async terminate(_metric, inFlight: Measurement, ctx): Promise<void> {
      const name = inFlight.metadata?.[JOB_NAME_KEY];
      if (name === undefined) return;
      const job = await api.get<JobObject>(Resources.Job, ctx.namespace, name);
      const uid = job?.metadata?.uid;
      // Someone else's Job under our name is left alone; the uid precondition keeps it so
      // should ours be replaced between the read and the delete.
      if (job === undefined || !ownedByRun(job, ctx) || uid === undefined) return;
      await api.delete(Resources.Job, ctx.namespace, name, {
        propagationPolicy: 'Background',
        preconditions: { uid },
      });
    },
  };
}

function pending(name: string): PendingOutcome {
  return { ok: 'pending', metadata: { [JOB_NAME_KEY]: name } };
}

const ownedByRun = (job: KubeObject, ctx: MeasureContext): boolean =>
  job.metadata?.ownerReferences?.some((o) => o.uid === ctx.run.uid) === true;

const notOurs = (ctx: MeasureContext, name: string): ProviderOutcome => ({
  ok: false,
  message: `Job ${ctx.namespace}/${name} exists and is not owned by this run`,
});

async function readJob(
  api: KubeApi,
  ctx: MeasureContext,
  name: string,
): Promise<{ ok: true; job: JobObject | undefined } | { ok: false; message: string }> {
  try {
    return { ok: true, job: await api.get<JobObject>(Resources.Job, ctx.namespace, name) };
  } catch (err) {
    return { ok: false, message: `cannot read Job ${name}: ${message(err)}` };
  }
}

/**
 * Argo's `GarbageCollect`, per metric: of the Jobs this run made for `metric`, only the newest
 * `ctx.keep` stay (the measurements still in status). Best effort: what is not deleted now is on
 * the next measurement, and the run's deletion takes all of them (they are owned by it).
 */
async function collectOldJobs(api: KubeApi, ctx: MeasureContext, metric: string): Promise<void> {
  if (ctx.keep === undefined || ctx.keep < 1) return;
  try {
    const listed = await api.list<JobObject>(Resources.Job, {
      namespace: ctx.namespace,
      labelSelector: `${JOB_RUN_LABEL}=${labelValue(ctx.run.name)},${JOB_METRIC_LABEL}=${labelValue(metric)}`,
    });
    const ours = listed.items
      .filter((j) => j.metadata?.labels?.[JOB_METRIC_LABEL] === labelValue(metric))
      .filter((j) => ownedByRun(j, ctx))
      .sort((a, b) => measurementNumber(a) - measurementNumber(b));
    for (const job of ours.slice(0, Math.max(0, ours.length - ctx.keep))) {
      await api.delete(Resources.Job, ctx.namespace, job.metadata?.name ?? '', {
        propagationPolicy: 'Background',
      });
    }
  } catch {
    // Left for the next measurement: collecting old Jobs never decides this one.
  }
}

const measurementNumber = (job: KubeObject): number =>
  Number(job.metadata?.labels?.[JOB_MEASUREMENT_LABEL] ?? 0);

async function imagePullError(
  api: KubeApi,
  namespace: string,
  job: string,
): Promise<string | undefined> {
  const pods = await api.list<PodObject>(Resources.Pod, {
    namespace,
    labelSelector: `batch.kubernetes.io/job-name=${job}`,
  });
  for (const pod of pods.items) {
    for (const c of pod.status?.containerStatuses ?? []) {
      const reason = c.state?.waiting?.reason;
      if (reason !== undefined && IMAGE_PULL_ERRORS.has(reason)) return reason;
    }
  }
  return undefined;
}

const message = (err: unknown): string => (err instanceof Error ? err.message : String(err));
