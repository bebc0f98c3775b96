/**
 * Where each awaiting-approval message went in Slack, by (Rollout UID, revision, step), and the
 * decision once known, so the notifier can replace the buttons with the outcome. Bounded: the
 * oldest entries are forgotten first (a restart forgets them all; `resolve` can be told again).
 */
import type { ApprovalMessageKey, ApprovalOutcome, Notification } from './notification.ts';
import type { PostedMessage } from './slack.ts';

export interface TrackedApproval {
  readonly notification: Notification;
  readonly messages: readonly PostedMessage[];
  readonly outcome: ApprovalOutcome | undefined;
}

interface Entry {
  readonly notification: Notification;
  readonly messages: PostedMessage[];
  outcome: ApprovalOutcome | undefined;
}

export class PostedApprovals {
  readonly #max: number;
  readonly #entries = new Map<string, Entry>();

  constructor(max: number) {
    this.#max = Math.max(1, max);
  }

  get(key: ApprovalMessageKey): TrackedApproval | undefined {
    return this.#entries.get(keyText(key));
  }

  /** Starts tracking (if not yet) the approval message of `n`. */
  track(key: ApprovalMessageKey, n: Notification): TrackedApproval {
    return this.#ensure(key, n);
  }

  /** Records where a message landed; false if it was already known. */
  addMessage(key: ApprovalMessageKey, n: Notification, m: PostedMessage): boolean {
    const entry = this.#ensure(key, n);
    if (entry.messages.some((x) => x.channel === m.channel && x.ts === m.ts)) return false;
    entry.messages.push(m);
    return true;
  }

  setOutcome(key: ApprovalMessageKey, n: Notification, outcome: ApprovalOutcome): void {
    this.#ensure(key, n).outcome = outcome;
  }

  #ensure(key: ApprovalMessageKey, n: Notification): Entry {
    const k = keyText(key);
    const found = this.#entries.get(k);
    if (found !== undefined) return found;
    const entry: Entry = { notification: n, messages: [], outcome: undefined };
    this.#entries.set(k, entry);
    for (const old of this.#entries.keys()) {
      if (this.#entries.size <= this.#max) break;
      this.#entries.delete(old);
    }
    return entry;
  }
}

export function keyText(key: ApprovalMessageKey): string {
  return `${key.uid}/${key.revision}/${key.step}`;
}
