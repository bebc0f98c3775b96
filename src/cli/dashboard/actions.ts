/**
 * The dashboard's actions are the plugin's commands: the same decisions (src/cli/requests.ts)
 * and the same write (commands/send-request.ts: a status merge patch carrying the read
 * resourceVersion, under the plugin's field manager, with the user's credentials). The page's
 * buttons are enabled where the decision would write, and say the plugin's refusal where not.
 */
import type { Rollout } from '../../api/rollout.ts';
import type {
  ActionName,
  ActionOffer,
  ActionRequest,
  ActionResult,
  DashboardActions,
} from '../../dashboard/index.ts';
import type { KubeClient } from '../client.ts';
import type { CliDeps } from '../context.ts';
import { CliError } from '../errors.ts';
import {
  decideAbort,
  decidePause,
  decidePromote,
  decideResume,
  decideRetry,
  type Decision,
} from '../requests.ts';
import { sendRequest } from '../commands/send-request.ts';
import { Sink } from '../terminal.ts';

interface ActionRow {
  readonly label: string;
  /** The confirmation's question, about `name`. */
  readonly confirm: (name: string) => string;
  /** What it does, shown beside an enabled button. */
  readonly does: string;
  readonly decide: (ro: Rollout, now: number) => Decision;
}

/** Same order and words as the plugin's commands. */
const ACTIONS: Record<ActionName, ActionRow> = {
  promote: {
    label: 'Promote',
    confirm: (n) => `Promote ${n}?`,
    does: 'Resume the pause, or skip the current step (kubectl stepwise promote).',
    decide: (ro) => decidePromote(ro, { full: false }),
  },
  'promote-full': {
    label: 'Promote full',
    confirm: (n) => `Promote ${n} fully, skipping every remaining step?`,
    does: 'Skip all remaining steps, pauses and analyses (kubectl stepwise promote --full).',
    decide: (ro) => decidePromote(ro, { full: true }),
  },
  pause: {
    label: 'Pause',
    confirm: (n) => `Pause ${n} at its current step?`,
    does: 'Hold it at its step until resumed (kubectl stepwise pause; status only).',
    decide: (ro, now) => decidePause(ro, now),
  },
  resume: {
    label: 'Resume',
    confirm: (n) => `Resume ${n}?`,
    does: 'Take back a pause made with Pause (kubectl stepwise resume).',
    decide: (ro) => decideResume(ro),
  },
  abort: {
    label: 'Abort',
    confirm: (n) => `Abort the update of ${n} and go back to stable?`,
    does: 'Send the stable version back to full and the new one to zero (kubectl stepwise abort).',
    decide: (ro) => decideAbort(ro),
  },
  retry: {
    label: 'Retry',
    confirm: (n) => `Retry the aborted update of ${n} from its first step?`,
    does: 'Start the aborted update again (kubectl stepwise retry).',
    decide: (ro) => decideRetry(ro),
  },
};

export function pluginActions(
  client: KubeClient,
  deps: Pick<CliDeps, 'now' | 'env' | 'connect' | 'onInterrupt' | 'readStdin'>,
): DashboardActions {
  return {
    offers(ro, now) {
      const name = ro.metadata.name ?? '';
      return (Object.keys(ACTIONS) as ActionName[]).map((action): ActionOffer => {
        const row = ACTIONS[action];
        const d = row.decide(ro, now);
        return {
          action,
          label: row.label,
          confirm: row.confirm(name),
          enabled: d.kind === 'patch',
          note: d.kind === 'patch' ? row.does : d.message,
        };
      });
    },
    async run(req: ActionRequest): Promise<ActionResult & { status: number }> {
      const row = ACTIONS[req.action];
      const out = new Sink();
      const err = new Sink();
      try {
        await sendRequest({ ...deps, out, err }, client, req.namespace, req.name, (ro) =>
          row.decide(ro, deps.now()),
        );
        return { ok: true, message: out.text.trim(), status: 200 };
      } catch (e) {
        if (e instanceof CliError) {
          // The API server's refusal keeps its status (403 forbidden, 409 conflict, 404); the
          // plugin's own ("is not paused…") is a 409: the Rollout is not in a state for it.
          return { ok: false, message: e.message, status: e.httpStatus ?? 409 };
        }
        return { ok: false, message: e instanceof Error ? e.message : String(e), status: 500 };
      }
    },
  };
}
