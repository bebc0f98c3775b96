/**
 * restart, undo, set image: read the Rollout, decide, and patch the Rollout itself (or, for undo
 * and set image on a Rollout with a workloadRef, the object it names) under the plugin's field
 * manager. A patch that carries the resourceVersion read and meets a 409
 * Conflict is decided again on a fresh read, as promote does for status.
 */
import type { Rollout } from '../../api/rollout.ts';
import type { JsonPatchOp, KubeClient } from '../client.ts';
import { println, type CliDeps } from '../context.ts';
import { CliError, isConflict } from '../errors.ts';
import { rolloutHolder, workloadHolder } from '../spec-edits.ts';
import type { SpecDecision, TemplateHolder } from '../spec-edits.ts';
import { MAX_ATTEMPTS } from './send-request.ts';

export async function sendSpecChange(
  deps: CliDeps,
  client: KubeClient,
  namespace: string,
  name: string,
  decide: (ro: Rollout) => SpecDecision | Promise<SpecDecision>,
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const ro = await client.getRollout(namespace, name);
    const decision = await decide(ro);
    if (decision.kind === 'error') throw new CliError(decision.message);
    if (decision.kind === 'patch') {
      try {
        if (decision.target === undefined) {
          await client.patchRollout(namespace, name, decision.patch);
        } else {
          const ops = decision.patch as readonly JsonPatchOp[];
          await client.patchWorkload(namespace, decision.target, ops);
        }
      } catch (err) {
        if (isConflict(err) && attempt < MAX_ATTEMPTS) continue;
        throw err;
      }
    }
    println(deps, decision.message);
    return 0;
  }
}

/** Where the Rollout's pod template lives: its spec, or the object its workloadRef names. */
export async function templateHolder(
  client: KubeClient,
  namespace: string,
  ro: Rollout,
): Promise<TemplateHolder> {
  const ref = ro.spec.workloadRef;
  if (ref === undefined) return rolloutHolder(ro);
  return workloadHolder(ref, await client.getWorkload(namespace, ref));
}
