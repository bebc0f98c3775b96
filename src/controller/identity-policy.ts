/**
 * The controller trusts `spec.approver` of a RolloutApproval only because the identity policy
 * (deploy/approvals/identity-policy.yaml) made the API server refuse any that named someone
 * else: the controller never sees who created an object. So it checks that the policy and its
 * binding exist, at start-up and every CHECK_INTERVAL_MS, and screens RolloutApprovals before
 * the planner judges them. While the policy is missing none counts; one created before the
 * binding (nothing checked it) never counts. Both are refused on the RolloutApproval's status,
 * which `kubectl stepwise approve` prints, with an Event on the Rollout.
 * `--trust-approvals-without-identity-policy` (clusters before 1.30) turns the screen off.
 */
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { ApprovalRefusal } from '../api/index.ts';
import type { Reason, RolloutApproval } from '../api/index.ts';
import { errorText, Resources } from '../kube/index.ts';
import type { Clock, KindAccess, KubeApi, KubeObject, Logger } from '../kube/index.ts';
import type { Write } from '../rollout/index.ts';

/** Read again this often: a policy removed later stops approvals within this time. */
export const CHECK_INTERVAL_MS = 10_000;

/** What the check reads (deploy/rbac/rbac.yaml grants it; test/unit/rbac.test.ts checks). */
export const identityPolicyKinds = (): readonly KindAccess[] => [
  { type: Resources.ValidatingAdmissionPolicy, verbs: ['get'] },
  { type: Resources.ValidatingAdmissionPolicyBinding, verbs: ['get'] },
];

export type IdentityPolicyState =
  /** --trust-approvals-without-identity-policy: every RolloutApproval is judged. */
  | { readonly kind: 'trusted' }
  /** Never read (or every read failed): RolloutApprovals wait, neither judged nor refused. */
  | { readonly kind: 'unknown' }
  | { readonly kind: 'missing'; readonly problem: string }
  /** In force since the binding's creationTimestamp (epoch ms). */
  | { readonly kind: 'present'; readonly since: number };

interface PolicyBinding extends KubeObject {
  readonly metadata?: KubeObject['metadata'] & { readonly creationTimestamp?: string };
  readonly spec?: { readonly policyName?: string; readonly validationActions?: readonly string[] };
}

/** What the policy and binding named `name` (absent: not found) say about approvals. */
export function policyState(
  name: string,
  policy: KubeObject | undefined,
  binding: PolicyBinding | undefined,
): IdentityPolicyState {
  if (policy === undefined) {
    return { kind: 'missing', problem: `ValidatingAdmissionPolicy ${name} not found` };
  }
  if (binding === undefined) {
    return { kind: 'missing', problem: `ValidatingAdmissionPolicyBinding ${name} not found` };
  }
  if (binding.spec?.policyName !== name) {
    return {
      kind: 'missing',
      problem: `ValidatingAdmissionPolicyBinding ${name} binds "${binding.spec?.policyName ?? ''}", not ${name}`,
    };
  }
  if (binding.spec.validationActions?.includes('Deny') !== true) {
    return {
      kind: 'missing',
      problem: `ValidatingAdmissionPolicyBinding ${name} does not deny (validationActions: ${(binding.spec.validationActions ?? []).join(', ')})`,
    };
  }
  const since = Date.parse(String(binding.metadata?.creationTimestamp ?? ''));
  if (Number.isNaN(since)) {
    return {
      kind: 'missing',
      problem: `ValidatingAdmissionPolicyBinding ${name} has no creationTimestamp`,
    };
  }
  return { kind: 'present', since };
}

export interface ScreenedApprovals {
  /** What the planner may judge. */
  readonly admitted: readonly RolloutApproval[];
  /** Answered here: their status and an Event on the Rollout, after the planner's writes. */
  readonly writes: readonly Write[];
}

/** Keeps from the planner the RolloutApprovals that the policy's state does not vouch for. */
export function screenApprovals(
  requests: readonly RolloutApproval[],
  state: IdentityPolicyState,
  now: number,
): ScreenedApprovals {
  if (state.kind === 'trusted') return { admitted: requests, writes: [] };
  const admitted: RolloutApproval[] = [];
  const writes: Write[] = [];
  const at = new Date(now).toISOString();
  for (const request of requests) {
    // Answered ones are history: the planner reads them for what they already recorded.
    if (request.status?.phase !== undefined || request.metadata.deletionTimestamp !== undefined) {
      admitted.push(request);
      continue;
    }
    if (state.kind === 'unknown') continue;
    const refusal = refusalOf(request, state);
    if (refusal === undefined) {
      admitted.push(request);
      continue;
    }
    const name = request.metadata.name ?? '';
    writes.push(
      { kind: 'markApproval', name, status: { phase: 'Refused', ...refusal, at } },
      {
        kind: 'event',
        type: 'Warning',
        reason: refusal.reason,
        message: `${request.spec.decision} by ${request.spec.approver} (RolloutApproval ${name}) refused: ${refusal.message}`,
      },
    );
  }
  return { admitted, writes };
}

function refusalOf(
  request: RolloutApproval,
  state: Extract<IdentityPolicyState, { kind: 'missing' | 'present' }>,
): { readonly reason: Reason & ApprovalRefusal; readonly message: string } | undefined {
  if (state.kind === 'missing') {
    return {
      reason: ApprovalRefusal.IdentityPolicyMissing,
      message: `the identity policy is not in force (${state.problem}), so nothing checked that the approver made this request; an administrator installs deploy/approvals/identity-policy.yaml`,
    };
  }
  const created = Date.parse(String(request.metadata.creationTimestamp ?? ''));
  // No timestamp cannot be shown to be after the binding: as if before.
  if (!Number.isNaN(created) && created >= state.since) return undefined;
  return {
    reason: ApprovalRefusal.PredatesIdentityPolicy,
    message: `created ${String(request.metadata.creationTimestamp ?? '(no time)')}, before the identity policy was bound (${new Date(state.since).toISOString()}), so nothing checked that the approver made it; decide again`,
  };
}

export function identityPolicyGauge(registry: Registry): { set(value: number): void } {
  return new Gauge({
    name: 'stepwise_identity_policy_in_force',
    help: 'Whether RolloutApprovals are judged: 1 the identity policy and its binding exist (or --trust-approvals-without-identity-policy), 0 not (or not yet read).',
    registers: [registry],
  });
}

export interface IdentityPolicyCheckDeps {
  readonly api: KubeApi;
  readonly name: string;
  readonly trusted: boolean;
  /** --namespaced: cluster-scoped policies cannot be read, so the policy is never in force. */
  readonly namespaced?: boolean;
  readonly clock: Clock;
  readonly log: Logger;
  /** 1 while the policy is in force (or trusted), 0 otherwise. */
  readonly gauge: { set(value: number): void };
}

/** Reads the policy and its binding now and then; `state()` is the last thing it learnt. */
export class IdentityPolicyCheck {
  readonly #d: IdentityPolicyCheckDeps;
  #state: IdentityPolicyState;
  #cancelTimer: (() => void) | undefined;
  #stopped = false;

  constructor(d: IdentityPolicyCheckDeps) {
    this.#d = d;
    this.#state = d.trusted ? { kind: 'trusted' } : { kind: 'unknown' };
    d.gauge.set(d.trusted ? 1 : 0);
    if (d.trusted) {
      d.log.warn('RolloutApprovals are trusted without checking the identity policy', {
        flag: '--trust-approvals-without-identity-policy',
      });
    }
  }

  state(): IdentityPolicyState {
    return this.#state;
  }

  /** Reads once, then every CHECK_INTERVAL_MS until stop(). */
  async start(): Promise<void> {
    if (this.#d.trusted) return;
    this.#stopped = false;
    await this.refresh();
    const again = (): void => {
      if (this.#stopped) return;
      this.#cancelTimer = this.#d.clock.after(CHECK_INTERVAL_MS, () => {
        void this.refresh().then(again);
      });
    };
    again();
  }

  stop(): void {
    this.#stopped = true;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
  }

  /** What the cluster says now; undefined when it could not be read (the last state holds). */
  async #read(): Promise<IdentityPolicyState | undefined> {
    const { api, name, log } = this.#d;
    if (this.#d.namespaced === true) {
      return {
        kind: 'missing',
        problem:
          'the controller runs namespaced (--namespaced) and may not read cluster-scoped admission policies',
      };
    }
    try {
      const [policy, binding] = await Promise.all([
        api.get(Resources.ValidatingAdmissionPolicy, undefined, name),
        api.get<PolicyBinding>(Resources.ValidatingAdmissionPolicyBinding, undefined, name),
      ]);
      return policyState(name, policy, binding);
    } catch (err) {
      // Keep what was known: a passing API error must not refuse people's decisions for good.
      log.warn('cannot read the identity policy; keeping the last state', {
        policy: name,
        state: this.#state.kind,
        error: errorText(err),
      });
      return undefined;
    }
  }

  async refresh(): Promise<void> {
    const { name, log } = this.#d;
    const next = await this.#read();
    if (next === undefined) return;
    const before = this.#state;
    this.#state = next;
    this.#d.gauge.set(next.kind === 'present' ? 1 : 0);
    if (before.kind === next.kind && JSON.stringify(before) === JSON.stringify(next)) return;
    if (next.kind === 'present') {
      log.info('identity policy in force: RolloutApprovals created since its binding count', {
        policy: name,
        since: new Date(next.since).toISOString(),
      });
    } else if (next.kind === 'missing') {
      log.error('identity policy missing: RolloutApprovals (plugin decisions) are refused', {
        policy: name,
        problem: next.problem,
        flag: '--trust-approvals-without-identity-policy (clusters before 1.30 only)',
      });
    }
  }
}
