/**
 * The dashboard's actions are the plugin's commands: the same decisions (src/cli/requests.ts,
 * spec-edits.ts, approvals.ts) and the same writes (a status merge patch carrying the read
 * resourceVersion; a spec patch; a RolloutApproval created as the user), under the plugin's
 * field manager, with the user's credentials. The page's buttons are enabled where the decision
 * would write, and say the plugin's refusal where not. The rows are in action-rows.ts.
 */
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
import { Sink } from '../terminal.ts';
import { ACTIONS, type ActionDeps } from './action-rows.ts';

export function pluginActions(
  client: KubeClient,
  deps: Pick<CliDeps, 'now' | 'env' | 'connect' | 'onInterrupt' | 'readStdin'>,
): DashboardActions {
  return {
    offers(ro, now) {
      const name = ro.metadata.name ?? '';
      return (Object.keys(ACTIONS) as ActionName[]).map((action): ActionOffer => {
        const row = ACTIONS[action];
        const refusal = row.refusal(ro, now);
        const inputs = row.inputs?.(ro);
        return {
          action,
          label: row.label,
          confirm: row.confirm(name),
          enabled: refusal === undefined,
          note: refusal ?? row.does,
          ...(inputs === undefined ? {} : { inputs }),
        };
      });
    },
    async run(req: ActionRequest): Promise<ActionResult & { status: number }> {
      const row = ACTIONS[req.action];
      const out = new Sink();
      const err = new Sink();
      const ctx: ActionDeps = { deps: { ...deps, out, err }, client };
      try {
        await row.send(ctx, req);
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
