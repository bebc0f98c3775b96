/**
 * A ReplicaSet write the API server refuses (an invalid pod template the Rollout's CRD cannot
 * check, an admission policy, a quota, missing RBAC) is not a transient failure: retrying it
 * unchanged fails the same way. The shell turns it into a `Refusal` for the planner, which says
 * so in the Rollout's status (ReplicaFailure, Degraded) and in one Warning event; the write is
 * still retried with the work queue's backoff, since whatever refused it may change.
 */
import { StepwiseError } from '../api/index.ts';
import { ApiStatusError } from '../kube/index.ts';
import type { Refusal } from '../rollout/progressing.ts';
import type { Write } from '../rollout/index.ts';

/** BadRequest, Forbidden, Invalid: the server understood and said no. */
const REFUSING_STATUSES: readonly number[] = [400, 403, 422];

export function refusalOf(write: Write, err: unknown): Refusal | undefined {
  if (write.kind !== 'applyReplicaSet' || !(err instanceof ApiStatusError)) return undefined;
  if (!REFUSING_STATUSES.includes(err.httpStatus)) return undefined;
  return {
    replicaSet: write.body.metadata?.name ?? '',
    create: write.reason === 'create',
    message: err.message,
  };
}

/** Thrown after the refusal is recorded, so the key backs off before the write is tried again. */
export class RefusedWriteError extends StepwiseError {
  readonly code = 'SW_CONTROLLER_WRITE_REFUSED';
  override name = 'RefusedWriteError';
  readonly refusal: Refusal;
  constructor(refusal: Refusal, options?: ErrorOptions) {
    super(`API server refused ReplicaSet ${refusal.replicaSet}: ${refusal.message}`, options);
    this.refusal = refusal;
  }
}
