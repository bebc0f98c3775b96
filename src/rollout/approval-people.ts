/**
 * Who an approval record stands for, pure. Each channel names people its own way (the
 * Kubernetes user for the plugin, the Slack user ID, `link:<token id>`), so counting `by` strings
 * let one person approve once per channel. Here a record is resolved to a person through the
 * step's `approvers.people` and then the cluster-wide mapping (--approval-people); an identity
 * mapped to nobody is its own person only within its channel. Links prove nobody: together they
 * are one anonymous approver, counted only where the step allows it.
 */
import type { ApprovalRecord, ApprovalStep, Approvers, Person } from '../api/index.ts';
import { parsePauseDuration } from '../api/pause-duration.ts';
import type { ApprovalGate } from './approval-gates.ts';

/** The fields of a record (or a decision about to be recorded) that say who made it. */
export type Identity = Pick<ApprovalRecord, 'by' | 'via' | 'groups' | 'person'>;

/** Counting key of the anonymous approver all link approvals together are. */
export const ANONYMOUS_LINK = 'link';

/** No approvers named: anyone who can reach a channel may decide (RBAC, a link, the Slack
 *  workspace). Once any are named, only they may, each through the channel that proves who they
 *  are; a signed link proves nobody, so it counts only when nobody is named. */
export function anyoneMay(a: Approvers): boolean {
  return !a.users?.length && !a.groups?.length && !a.slackUsers?.length && !a.people?.length;
}

/** The person an identity is, if the step's or the cluster's mapping knows it (step first);
 *  else the person the controller recorded (the plugin does not know the cluster's mapping). */
export function personOf(
  id: Identity,
  approvers: Approvers,
  clusterPeople: readonly Person[],
): Person | undefined {
  if (id.via === 'link') return undefined;
  const matches = (p: Person): boolean =>
    id.via === 'plugin' ? p.kubeUser === id.by : p.slackUser === id.by;
  const mapped = (approvers.people ?? []).find(matches) ?? clusterPeople.find(matches);
  return mapped ?? (id.person !== undefined ? { name: id.person } : undefined);
}

/** Who counts as one approver: the person, else the identity within its channel; links are
 *  one anonymous approver. */
export function countingKey(id: Identity, person: Person | undefined): string {
  if (id.via === 'link') return ANONYMOUS_LINK;
  return person !== undefined ? `person:${person.name}` : `${id.via}:${id.by}`;
}

/** Whether the step's approvers admit this identity, through its channel or its person. */
export function admits(a: Approvers, id: Identity, person: Person | undefined): boolean {
  if (anyoneMay(a)) return true;
  if (id.via === 'link') return false;
  const groups = a.groups ?? [];
  const inGroups = (gs: readonly string[] | undefined): boolean =>
    (gs ?? []).some((g) => groups.includes(g));
  const direct =
    id.via === 'plugin'
      ? (a.users ?? []).includes(id.by) || inGroups(id.groups)
      : (a.slackUsers ?? []).includes(id.by);
  if (direct || person === undefined) return direct;
  return (
    (a.people ?? []).some((p) => p.name === person.name) ||
    (person.kubeUser !== undefined && (a.users ?? []).includes(person.kubeUser)) ||
    (person.slackUser !== undefined && (a.slackUsers ?? []).includes(person.slackUser)) ||
    inGroups(person.groups)
  );
}

/** A record that counts for `step`, with the approver it counts as and the name to show. */
export interface Counted {
  readonly record: ApprovalRecord;
  readonly key: string;
  readonly label: string;
}

/** The records the step admits now, each with who it counts as. */
export function admitted(
  step: ApprovalStep,
  records: readonly ApprovalRecord[],
  clusterPeople: readonly Person[],
): Counted[] {
  const a = step.approvers ?? {};
  return records.flatMap((record) => {
    const person = personOf(record, a, clusterPeople);
    if (!admits(a, record, person)) return [];
    const key = countingKey(record, person);
    return [
      { record, key, label: key === ANONYMOUS_LINK ? 'a link' : (person?.name ?? record.by) },
    ];
  });
}

/** Distinct approvers among the admitted approvals; the anonymous link approver only where the
 *  step needs one approval or says links count. Labels in the order first approved. */
export function distinctApprovers(step: ApprovalStep, approvals: readonly Counted[]): string[] {
  const linksCount = (step.minApprovals ?? 1) === 1 || step.countLinkApprovals === true;
  const seen = new Map<string, string>();
  for (const c of approvals) {
    if (c.key === ANONYMOUS_LINK && !linksCount) continue;
    if (!seen.has(c.key)) seen.set(c.key, c.label);
  }
  return [...seen.values()];
}

/** The people a step names, each counted once: listed people, and listed identities not
 *  mapped to one of them (by the step or the cluster). */
export function namedPeople(a: Approvers, clusterPeople: readonly Person[]): number {
  const keys = new Set<string>((a.people ?? []).map((p) => `person:${p.name}`));
  for (const user of a.users ?? []) {
    const id: Identity = { by: user, via: 'plugin' };
    keys.add(countingKey(id, personOf(id, a, clusterPeople)));
  }
  for (const user of a.slackUsers ?? []) {
    const id: Identity = { by: user, via: 'slack' };
    keys.add(countingKey(id, personOf(id, a, clusterPeople)));
  }
  return keys.size;
}

/**
 * What the cluster-wide mapping makes of the approval steps: a step that cannot tell people
 * apart, or names fewer people than it needs once identities are mapped. Each line names the
 * field. (The rules that need no mapping are the step's own, in step-kinds.ts.)
 */
export function approvalPeopleProblems(
  gates: readonly ApprovalGate[],
  clusterPeople: readonly Person[],
): string[] {
  return gates.flatMap((gate) => {
    const step = gate.approval;
    const at = `${gate.field}.minApprovals`;
    const a = step.approvers ?? {};
    const needed = step.minApprovals ?? 1;
    const problems: string[] = [];
    const unmapped = unmappedChannelsProblem(step, clusterPeople);
    if (unmapped !== undefined) problems.push(`${at}: ${unmapped}`);
    const named = namedPeople(a, clusterPeople);
    if (!a.groups?.length && named > 0 && named < needed && needed <= namedPeople(a, [])) {
      problems.push(
        `${at}: must not exceed the ${named} people listed once --approval-people maps their identities (got ${needed})`,
      );
    }
    return problems;
  });
}

/**
 * Why a step that needs several approvals cannot tell people apart, if it cannot: with both
 * Kubernetes approvers (users or groups) and Slack users named, one person could approve once
 * per channel unless every Slack user is mapped to a person.
 */
export function unmappedChannelsProblem(
  step: ApprovalStep,
  clusterPeople: readonly Person[],
): string | undefined {
  const a = step.approvers ?? {};
  const needed = step.minApprovals ?? 1;
  const kube = (a.users?.length ?? 0) + (a.groups?.length ?? 0) > 0;
  if (needed <= 1 || !kube || !a.slackUsers?.length) return undefined;
  const unmapped = a.slackUsers.filter(
    (u) => personOf({ by: u, via: 'slack' }, a, clusterPeople) === undefined,
  );
  if (unmapped.length === 0) return undefined;
  return `minApprovals ${needed} with both Kubernetes approvers and slackUsers needs every Slack user mapped to a person (approvers.people or --approval-people), or one person could approve once per channel; not mapped: ${unmapped.join(', ')}`;
}

/** An approval step people can satisfy: a timeout that parses, and enough named approvers. */
export function approvalProblems(approval: ApprovalStep, at: string): string[] {
  const problems: string[] = [];
  if (approval.timeout !== undefined) {
    const parsed = parsePauseDuration(approval.timeout);
    if (!parsed.ok) problems.push(`${at}.timeout: ${parsed.error}`);
    else if (parsed.value === 0) problems.push(`${at}.timeout: must be greater than 0`);
  }
  const a = approval.approvers;
  // People, not identities: alice's Kubernetes and Slack names mapped to her are one approver.
  const named = a === undefined ? 0 : namedPeople(a, []);
  const needed = approval.minApprovals ?? 1;
  if (a !== undefined && (a.groups ?? []).length === 0 && named > 0 && needed > named) {
    problems.push(
      `${at}.minApprovals: must not exceed the ${named} approvers listed (got ${needed})`,
    );
  }
  return problems;
}
