/**
 * PURE: what promote, abort and retry write. People's requests go to `status` only (Git is the
 * only author of `spec`), as JSON merge patches through the /status subresource.
 */
import { PauseReason } from '../api/reasons.ts';
import type { PauseCondition, Rollout } from '../api/rollout.ts';
import { approvalGates } from '../rollout/index.ts';
import { isFullyPromoted, rolloutPhase, stepsOf } from './render/info.ts';

/** The `status` part of the merge patch; `null` deletes a field. */
export interface StatusRequest {
  pauseConditions?: PauseCondition[] | null;
  currentStepIndex?: number;
  promoteFull?: true;
  abort?: boolean;
}

export type Decision =
  /** write the patch, then print `message` */
  | { kind: 'patch'; status: StatusRequest; message: string }
  /** nothing to write; print `message` and succeed */
  | { kind: 'noop'; message: string }
  /** refuse with this one-line error */
  | { kind: 'error'; message: string };

const cli = 'kubectl stepwise';

/** The spec generation has been observed, so status describes the current template. */
const observed = (ro: Rollout): boolean =>
  ro.status?.observedGeneration !== undefined &&
  ro.status.observedGeneration === String(ro.metadata.generation ?? '');

export function decidePromote(ro: Rollout, opts: { full: boolean }): Decision {
  const name = ro.metadata.name ?? '';
  const st = ro.status ?? {};
  if (ro.spec.paused) {
    return {
      kind: 'error',
      message: `rollout '${name}' is paused in Git (spec.paused: true) and cannot be promoted from the plugin; set spec.paused to false in Git`,
    };
  }
  const steps = stepsOf(ro);
  const index = st.currentStepIndex;
  const midSteps = index !== undefined && index < steps;
  const paused = (st.pauseConditions?.length ?? 0) > 0;
  const done = isFullyPromoted(ro) && !paused && !midSteps && observed(ro);
  if (opts.full) {
    if (done) return { kind: 'noop', message: `rollout '${name}' is already fully promoted` };
    if (st.promoteFull)
      return { kind: 'noop', message: `rollout '${name}' is already being fully promoted` };
    const approval = approvalAhead(ro);
    if (approval !== undefined) {
      // The API server refuses it too (deploy/approvals/status-policy.yaml); said here first.
      return {
        kind: 'error',
        message: `rollout '${name}' has an approval ${approval}, which a full promotion may not skip; approve it with '${cli} approve ${name}' when the rollout waits there (without its approvers only with the break-glass right: '${cli} approve ${name} --break-glass')`,
      };
    }
    return {
      kind: 'patch',
      status: { promoteFull: true, pauseConditions: null },
      message: `rollout '${name}' fully promoted`,
    };
  }
  if (st.abort) {
    // --full is no way out where an approval step lies ahead: the status policy refuses it.
    const orFull =
      approvalAhead(ro) === undefined
        ? ` or '${cli} promote ${name} --full' to skip to the end`
        : '';
    return {
      kind: 'error',
      message: `rollout '${name}' is aborted; use '${cli} retry rollout ${name}' to restart the update${orFull}`,
    };
  }
  if (st.pauseConditions?.some((c) => c.reason === PauseReason.PausedByUser)) {
    return {
      kind: 'error',
      message: `rollout '${name}' was paused with '${cli} pause'; use '${cli} resume ${name}'`,
    };
  }
  if (st.pauseConditions?.some((c) => c.reason === PauseReason.AwaitingApproval)) {
    return {
      kind: 'error',
      message: `rollout '${name}' waits for approval ${ro.spec.strategy.blueGreen !== undefined ? 'before the switch' : `at step ${(index ?? 0) + 1}`}; use '${cli} approve ${name}' (recorded with your name); only the break-glass right passes it without its approvers ('${cli} approve ${name} --break-glass')`,
    };
  }
  if (paused) {
    return {
      kind: 'patch',
      status: { pauseConditions: null },
      message: `rollout '${name}' promoted`,
    };
  }
  if (midSteps) {
    return {
      kind: 'patch',
      status: { currentStepIndex: index + 1 },
      message: `rollout '${name}' promoted`,
    };
  }
  if (!observed(ro)) {
    return {
      kind: 'error',
      message: `the controller has not yet observed the latest spec of rollout '${name}' (generation ${ro.metadata.generation ?? '?'}); try again in a moment`,
    };
  }
  if (isFullyPromoted(ro)) {
    return { kind: 'noop', message: `rollout '${name}' is already fully promoted` };
  }
  const blueGreen = ro.spec.strategy.blueGreen !== undefined;
  return {
    kind: 'error',
    message: blueGreen
      ? `rollout '${name}' is not paused before the switch (the new version is not ready yet, or is under analysis); use '${cli} promote ${name} --full' to skip the pause and the analyses`
      : `rollout '${name}' is not paused and has no step left to skip; use '${cli} promote ${name} --full' to finish the update`,
  };
}

/**
 * The approval a full promotion would skip, as the status policy reads it
 * (deploy/approvals/status-policy.yaml), in the words of the refusal: `step ahead (step 3)` for
 * the first canary approval step at or after the current step index; `gate ahead (before the
 * switch)` for a blue-green `approval` gate until the controller has passed it (index 0 → 1).
 */
export function approvalAhead(ro: Rollout): string | undefined {
  const from = ro.status?.currentStepIndex ?? 0;
  const gate = approvalGates(ro).find((g) => g.index >= from);
  if (gate === undefined) return undefined;
  return ro.spec.strategy.blueGreen !== undefined
    ? 'gate ahead (before the switch)'
    : `step ahead (step ${gate.index + 1})`;
}

export function decideAbort(ro: Rollout): Decision {
  const name = ro.metadata.name ?? '';
  if (ro.status?.abort) return { kind: 'noop', message: `rollout '${name}' is already aborted` };
  if (isFullyPromoted(ro) && observed(ro) && rolloutPhase(ro).phase === 'Healthy') {
    return {
      kind: 'error',
      message: `rollout '${name}' is fully promoted; there is no update in progress to abort`,
    };
  }
  return { kind: 'patch', status: { abort: true }, message: `rollout '${name}' aborted` };
}

export function decideRetry(ro: Rollout): Decision {
  const name = ro.metadata.name ?? '';
  if (!ro.status?.abort) {
    return {
      kind: 'error',
      message: `rollout '${name}' is not aborted; retry only restarts an aborted update`,
    };
  }
  return { kind: 'patch', status: { abort: false }, message: `rollout '${name}' retried` };
}

/** `pause`: a person's pause condition beside the controller's; no step moves until `resume`.
 *  Status, not Argo's spec.paused: Git stays the only author of spec. */
export function decidePause(ro: Rollout, now: number): Decision {
  const name = ro.metadata.name ?? '';
  const st = ro.status ?? {};
  const conditions = st.pauseConditions ?? [];
  if (ro.spec.paused) {
    return { kind: 'noop', message: `rollout '${name}' is already paused in Git (spec.paused)` };
  }
  if (conditions.some((c) => c.reason === PauseReason.PausedByUser)) {
    return { kind: 'noop', message: `rollout '${name}' is already paused` };
  }
  if (st.abort) {
    return { kind: 'error', message: `rollout '${name}' is aborted: nothing moves until a retry` };
  }
  return {
    kind: 'patch',
    status: {
      pauseConditions: [
        ...conditions,
        {
          reason: PauseReason.PausedByUser,
          startTime: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        },
      ],
    },
    message: `rollout '${name}' paused`,
  };
}

/** `resume`: takes a person's pause back (a pause step is `promote`'s, spec.paused is Git's). */
export function decideResume(ro: Rollout): Decision {
  const name = ro.metadata.name ?? '';
  const conditions = ro.status?.pauseConditions ?? [];
  if (!conditions.some((c) => c.reason === PauseReason.PausedByUser)) {
    const why = ro.spec.paused
      ? 'it is paused in Git (spec.paused): set it to false there'
      : conditions.length > 0
        ? `it waits at a step (${conditions.map((c) => c.reason).join(', ')}): use '${cli} promote ${name}'`
        : 'it is not paused';
    return {
      kind: 'error',
      message: `rollout '${name}' was not paused with '${cli} pause': ${why}`,
    };
  }
  const rest = conditions.filter((c) => c.reason !== PauseReason.PausedByUser);
  return {
    kind: 'patch',
    status: { pauseConditions: rest.length > 0 ? rest : null },
    message: `rollout '${name}' resumed`,
  };
}
