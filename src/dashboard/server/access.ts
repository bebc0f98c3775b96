/**
 * What the in-cluster dashboard asks Kubernetes before it shows or does anything for a person
 * (SubjectAccessReview, for the signed-in user and their groups), and how it says no. The
 * dashboard's own ServiceAccount only reads; it never lends its rights to anybody.
 */
import { GROUP, ROLLOUT_APPROVAL_PLURAL, ROLLOUT_PLURAL } from '../../api/keys.ts';
import type { ActionName, ActionRequest } from '../model/wire.ts';
import type { SessionUser } from './cluster-sessions.ts';

export interface ResourceAttributes {
  readonly namespace: string;
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource?: string;
  readonly name?: string;
}

/** A SubjectAccessReview's status. */
export interface AccessDecision {
  readonly allowed: boolean;
  readonly reason?: string;
  readonly evaluationError?: string;
}

/** The API calls the in-cluster dashboard makes with its own ServiceAccount. */
export interface ClusterIdentity {
  /** TokenReview: whom the token belongs to, or why it is not accepted. */
  review(token: string): Promise<{ ok: true; user: SessionUser } | { ok: false; message: string }>;
  /** SubjectAccessReview for a user and their groups. */
  check(user: SessionUser, attributes: ResourceAttributes): Promise<AccessDecision>;
}

/** What each action writes: the same request the plugin's command sends. */
const WRITES: Record<ActionName, Omit<ResourceAttributes, 'namespace' | 'name'>> = {
  promote: statusPatch(),
  'promote-full': statusPatch(),
  pause: statusPatch(),
  resume: statusPatch(),
  abort: statusPatch(),
  retry: statusPatch(),
  approve: { verb: 'create', group: GROUP, resource: ROLLOUT_APPROVAL_PLURAL },
  reject: { verb: 'create', group: GROUP, resource: ROLLOUT_APPROVAL_PLURAL },
  restart: { verb: 'patch', group: GROUP, resource: ROLLOUT_PLURAL },
  'set-image': { verb: 'patch', group: GROUP, resource: ROLLOUT_PLURAL },
  undo: { verb: 'patch', group: GROUP, resource: ROLLOUT_PLURAL },
};

function statusPatch(): Omit<ResourceAttributes, 'namespace' | 'name'> {
  return { verb: 'patch', group: GROUP, resource: ROLLOUT_PLURAL, subresource: 'status' };
}

/** The write an action makes, as the attributes a SubjectAccessReview asks about. */
export function actionAttributes(req: ActionRequest): ResourceAttributes {
  const write = WRITES[req.action];
  // A RolloutApproval is a new object: its name is not known before it is created.
  return write.verb === 'create'
    ? { ...write, namespace: req.namespace }
    : { ...write, namespace: req.namespace, name: req.name };
}

/** What a person may see of a namespace: its Rollouts (the list a page shows). */
export const listAttributes = (namespace: string): ResourceAttributes => ({
  namespace,
  verb: 'list',
  group: GROUP,
  resource: ROLLOUT_PLURAL,
});

/** The refusal shown on the page, in the API server's words, and that nothing was written. */
export function refusalText(user: SessionUser, a: ResourceAttributes, d: AccessDecision): string {
  const resource = a.subresource === undefined ? a.resource : `${a.resource}/${a.subresource}`;
  const why = d.evaluationError ? `; ${d.evaluationError}` : d.reason ? `: ${d.reason}` : '';
  return `forbidden: user "${user.username}" cannot ${a.verb} ${resource} in the namespace "${a.namespace}"${why} (nothing was written)`;
}

/**
 * Which namespaces each person may list Rollouts in, asked once per person and namespace and
 * kept for `ttlMs` (RBAC changes reach an open page after that), with at most `max` people
 * remembered. A check that fails (the API server unreachable, the review refused) rejects and
 * is not kept: the page says so rather than showing an empty list.
 */
export class NamespaceAccess {
  readonly #check: ClusterIdentity['check'];
  readonly #ttlMs: number;
  readonly #max: number;
  readonly #now: () => number;
  readonly #answers = new Map<string, Map<string, { at: number; allowed: Promise<boolean> }>>();

  constructor(o: {
    check: ClusterIdentity['check'];
    ttlMs: number;
    max: number;
    now: () => number;
  }) {
    this.#check = o.check;
    this.#ttlMs = o.ttlMs;
    this.#max = o.max;
    this.#now = o.now;
  }

  canSee(user: SessionUser, namespace: string): Promise<boolean> {
    const who = `${user.username}\n${[...user.groups].sort().join('\n')}`;
    let mine = this.#answers.get(who);
    if (mine === undefined) {
      mine = new Map();
      this.#answers.set(who, mine);
      while (this.#answers.size > this.#max) {
        this.#answers.delete(this.#answers.keys().next().value as string);
      }
    }
    const t = this.#now();
    const kept = mine.get(namespace);
    if (kept !== undefined && t - kept.at < this.#ttlMs) return kept.allowed;
    const answers = mine;
    const allowed = this.#check(user, listAttributes(namespace)).then(
      (d) => d.allowed,
      (err: unknown) => {
        answers.delete(namespace);
        throw err;
      },
    );
    mine.set(namespace, { at: t, allowed });
    return allowed;
  }
}
