/**
 * The one definition of our mark on a user's object (GitOps rule 3): the managed-by annotation
 * names the Rollout, and beside it the Rollout's controller instance (absent without one), so
 * that a controller releasing what a gone Rollout marked touches only what its own instance
 * marked. Services and the routers' objects carry it alike.
 */
import {
  INSTANCE_ID_LABEL,
  MANAGED_BY_ANNOTATION,
  MANAGED_BY_INSTANCE_ANNOTATION,
} from './keys.ts';

interface Marker {
  readonly metadata?: {
    readonly name?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
}
interface Marked {
  readonly metadata?: { readonly annotations?: Readonly<Record<string, string>> };
}

/** The annotations an apply to a user's object carries for `rollout` (every apply must: one
 *  that leaves them out removes them). */
export function managedMark(rollout: Marker): Record<string, string> {
  const instance = rollout.metadata?.labels?.[INSTANCE_ID_LABEL];
  return {
    [MANAGED_BY_ANNOTATION]: rollout.metadata?.name ?? '',
    ...(instance === undefined ? {} : { [MANAGED_BY_INSTANCE_ANNOTATION]: instance }),
  };
}

/** Whether `obj` carries exactly `rollout`'s mark (its name and its instance). */
export function markedBy(obj: Marked, rollout: Marker): boolean {
  const notes = obj.metadata?.annotations ?? {};
  const want = managedMark(rollout);
  return (
    notes[MANAGED_BY_ANNOTATION] === want[MANAGED_BY_ANNOTATION] &&
    notes[MANAGED_BY_INSTANCE_ANNOTATION] === want[MANAGED_BY_INSTANCE_ANNOTATION]
  );
}

/** Who marked `obj`: the Rollout's name and its controller instance; undefined: unmarked. */
export function markOf(
  obj: Marked,
): { readonly rollout: string; readonly instance?: string } | undefined {
  const notes = obj.metadata?.annotations ?? {};
  const rollout = notes[MANAGED_BY_ANNOTATION];
  if (rollout === undefined) return undefined;
  const instance = notes[MANAGED_BY_INSTANCE_ANNOTATION];
  return instance === undefined ? { rollout } : { rollout, instance };
}
