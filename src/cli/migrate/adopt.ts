/**
 * `migrate --adopt`, in the order that keeps every pod: the templates and the Stepwise Rollout
 * applied (the controller adopts nothing while Argo's Rollout still controls the ReplicaSets:
 * its `Adopted` condition says so), Argo's status handed over, then Argo's Rollout deleted with
 * propagationPolicy=Orphan, so the garbage collector lets go of the ReplicaSets and the Stepwise
 * controller adopts them with their pods. Then it waits for the controller's answer.
 */
import {
  ANALYSIS_TEMPLATE_PLURAL,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
  CLUSTER_ANALYSIS_TEMPLATE_PLURAL,
  ROLLOUT_KIND,
  ROLLOUT_PLURAL,
} from '../../api/keys.ts';
import { ConditionType, Reason } from '../../api/reasons.ts';
import type { Rollout } from '../../api/rollout.ts';
import type { KubeClient } from '../client.ts';
import { CliError } from '../errors.ts';
import type { Converted } from './convert.ts';
import { liveArgoRollouts } from './sources.ts';

export interface AdoptOptions {
  readonly namespace: string;
  readonly timeoutMs: number;
  readonly now: () => number;
  readonly say: (line: string) => void;
}

const POLL_MS = 200;

export async function adoptAll(
  client: KubeClient,
  converted: readonly Converted[],
  o: AdoptOptions,
): Promise<void> {
  for (const t of converted.filter((c) => c.kind !== ROLLOUT_KIND)) {
    const cluster = t.kind === CLUSTER_ANALYSIS_TEMPLATE_KIND;
    const plural = cluster ? CLUSTER_ANALYSIS_TEMPLATE_PLURAL : ANALYSIS_TEMPLATE_PLURAL;
    const namespace = cluster ? undefined : (t.namespace ?? o.namespace);
    const metadata = { ...t.manifest.metadata, ...(namespace === undefined ? {} : { namespace }) };
    await client.applyStepwise(plural, namespace, { ...t.manifest, metadata });
    o.say(`${t.kind.toLowerCase()} '${t.name}' applied`);
  }
  for (const r of converted.filter((c) => c.kind === ROLLOUT_KIND)) {
    const namespace = r.namespace ?? o.namespace;
    const live = await liveArgoRollouts(client, namespace);
    const metadata = { ...r.manifest.metadata, namespace };
    await client.applyStepwise(ROLLOUT_PLURAL, namespace, { ...r.manifest, metadata });
    if (r.handover !== undefined) await client.applyHandover(namespace, r.name, r.handover);
    const uid = live.get(r.name);
    if (uid !== undefined) await client.orphanArgoRollout(namespace, r.name, uid);
    o.say(
      `rollout '${r.name}' applied${uid === undefined ? '' : "; Argo's Rollout deleted, its ReplicaSets orphaned"}`,
    );
    const adopted = await waitForAdoption(client, namespace, r.name, o);
    o.say(`rollout '${r.name}' adopted: ${adopted}`);
  }
}

/** The controller's `Adopted` condition once it settles; a refusal other than "Argo still
 *  holds them" (which the orphaning delete ends) fails the command with its message. */
async function waitForAdoption(
  client: KubeClient,
  namespace: string,
  name: string,
  o: AdoptOptions,
): Promise<string> {
  const deadline = o.now() + o.timeoutMs;
  let last: Rollout | undefined;
  while (o.now() < deadline) {
    last = await client.getRollout(namespace, name);
    const c = last.status?.conditions?.find((x) => x.type === ConditionType.Adopted);
    if (c?.status === 'True') return c.message;
    if (c?.status === 'False' && c.reason !== Reason.ArgoRolloutStillOwns) {
      throw new CliError(`rollout '${name}' not adopted: ${c.reason}: ${c.message}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  const why = last?.status?.message ? ` (${last.status.message})` : '';
  throw new CliError(
    `rollout '${name}' not adopted within ${o.timeoutMs / 1000}s${why}; is the Stepwise controller running?`,
  );
}
