/**
 * Where a Rollout may send notifications. Its annotations name Slack channels and webhooks; the
 * bot posts under its own name into any channel it is in, so an administrator may restrict each
 * namespace to a list (--notification-targets, a YAML map of namespace or `*` to
 * `{slackChannels, webhooks}`; `*` applies to every namespace, on top of its own entry). Without
 * the map every configured target is allowed. Either way a Rollout has at most
 * MAX_TARGETS_PER_ROLLOUT targets, so one Rollout cannot spend the bot's Slack rate limit (and
 * push other teams' approval requests out of the queue). Pure: the caller reads the file.
 */
import { load } from 'js-yaml';
import type { NotificationTarget } from './notifier.ts';

export const MAX_TARGETS_PER_ROLLOUT = 5;
/** In a list: every channel (or every webhook). */
export const ANY_TARGET = '*';
export const ANY_NAMESPACE = '*';

export interface AllowedTargets {
  /** Channel ids (C…) or #names, as the Rollouts' annotations write them; `*`: any. */
  readonly slackChannels: readonly string[];
  /** Names of `slack-webhook-<name>` and `webhook-<name>` in the notification Secret; `*`: any. */
  readonly webhooks: readonly string[];
}

/** Namespace (or `*`) → what its Rollouts may notify. */
export type TargetPolicy = ReadonlyMap<string, AllowedTargets>;

export interface RefusedTarget {
  readonly target: NotificationTarget;
  readonly why: string;
}

export interface TargetSelection {
  readonly allowed: readonly NotificationTarget[];
  readonly refused: readonly RefusedTarget[];
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const FIELDS = ['slackChannels', 'webhooks'] as const;

/** The file's text → the policy, or every problem found, each naming where it is. */
export function parseTargetPolicy(
  text: string,
): { ok: true; policy: TargetPolicy } | { ok: false; problems: readonly string[] } {
  let doc: unknown;
  try {
    doc = load(text);
  } catch (err) {
    return { ok: false, problems: [`not YAML: ${err instanceof Error ? err.message : ''}`] };
  }
  if (!isRecord(doc)) {
    return { ok: false, problems: ['must be a map of namespace (or "*") to allowed targets'] };
  }
  const problems: string[] = [];
  const policy = new Map<string, AllowedTargets>();
  for (const [ns, entry] of Object.entries(doc)) {
    if (ns !== ANY_NAMESPACE && !NAMESPACE.test(ns)) {
      problems.push(`${JSON.stringify(ns)} is not a namespace name or "*"`);
      continue;
    }
    if (entry === null) {
      policy.set(ns, { slackChannels: [], webhooks: [] }); // listed, nothing allowed
      continue;
    }
    if (!isRecord(entry)) {
      problems.push(`${ns}: must be a map with slackChannels and/or webhooks`);
      continue;
    }
    const unknown = Object.keys(entry).filter((k) => !(FIELDS as readonly string[]).includes(k));
    for (const k of unknown) problems.push(`${ns}.${k}: unknown (slackChannels, webhooks)`);
    const list = (field: (typeof FIELDS)[number]): string[] => {
      const value = entry[field];
      if (value === undefined || value === null) return [];
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && v.trim() !== '')) {
        problems.push(`${ns}.${field}: must be a list of names`);
        return [];
      }
      return value.map((v: string) => v.trim());
    };
    policy.set(ns, { slackChannels: list('slackChannels'), webhooks: list('webhooks') });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, policy };
}

/**
 * The targets a Rollout in `namespace` may use (in the annotations' order) and those refused:
 * outside the policy (when there is one), or past the cap.
 */
export function selectTargets(
  targets: readonly NotificationTarget[],
  namespace: string,
  policy: TargetPolicy | undefined,
): TargetSelection {
  const allowed: NotificationTarget[] = [];
  const refused: RefusedTarget[] = [];
  const entries = [policy?.get(namespace), policy?.get(ANY_NAMESPACE)].filter(
    (e) => e !== undefined,
  );
  for (const target of targets) {
    if (policy !== undefined && !entries.some((e) => permits(e, target))) {
      refused.push({ target, why: `not allowed for namespace ${namespace}` });
    } else if (allowed.length >= MAX_TARGETS_PER_ROLLOUT) {
      refused.push({ target, why: `over ${MAX_TARGETS_PER_ROLLOUT} targets per Rollout` });
    } else {
      allowed.push(target);
    }
  }
  return { allowed, refused };
}

/** How a target reads in an Event: the channel or the webhook's name, never a URL. */
export function describeTarget(t: NotificationTarget): string {
  switch (t.kind) {
    case 'slack':
      return `Slack channel ${t.channel}`;
    case 'slack-webhook':
      return `Slack webhook ${t.name}`;
    case 'webhook':
      return `webhook ${t.name}`;
  }
}

function permits(allowed: AllowedTargets, t: NotificationTarget): boolean {
  if (t.kind === 'slack') {
    // Channel names are lower-case in Slack; ids are upper-case: compare names without case.
    const same = (a: string) =>
      a === t.channel || (a.startsWith('#') && a.toLowerCase() === t.channel.toLowerCase());
    return allowed.slackChannels.some((a) => a === ANY_TARGET || same(a));
  }
  return allowed.webhooks.some((a) => a === ANY_TARGET || a === t.name);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
