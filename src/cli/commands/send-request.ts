/**
 * promote, abort, retry: read the Rollout, decide, and write the decision to /status as a JSON
 * merge patch carrying metadata.resourceVersion (optimistic concurrency). On 409 Conflict the
 * Rollout is read again and the decision made again.
 */
import type { Rollout } from '../../api/rollout.ts';
import type { KubeClient } from '../client.ts';
import { println, type CliDeps } from '../context.ts';
import { CliError, isConflict } from '../errors.ts';
import type { Decision } from '../requests.ts';

export const MAX_ATTEMPTS = 5;

export async function sendRequest(
  deps: CliDeps,
  client: KubeClient,
  namespace: string,
  name: string,
  decide: (ro: Rollout) => Decision,
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const ro = await client.getRollout(namespace, name);
    const decision = decide(ro);
    if (decision.kind === 'error') throw new CliError(decision.message);
    if (decision.kind === 'noop') {
      println(deps, decision.message);
      return 0;
    }
    const patch = {
      metadata: { resourceVersion: ro.metadata.resourceVersion },
      status: decision.status,
    };
    try {
      await client.patchRolloutStatus(namespace, name, patch);
    } catch (err) {
      if (isConflict(err) && attempt < MAX_ATTEMPTS) continue;
      throw err;
    }
    println(deps, decision.message);
    return 0;
  }
}
