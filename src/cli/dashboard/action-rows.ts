/**
 * Each dashboard action as the plugin command it is: whether it applies now (the plugin's
 * decision, or its refusal in its own words), what it asks for (the command's arguments), and
 * how it is sent (the command's own write). Same order and words as the plugin's commands.
 */
import type { RequestDecision } from '../../api/approval.ts';
import { POD_TEMPLATE_HASH_LABEL } from '../../api/keys.ts';
import type { Rollout } from '../../api/rollout.ts';
import type { ActionInput, ActionName, ActionRequest } from '../../dashboard/index.ts';
import { decideApproval } from '../approvals.ts';
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
import { decideRestart, decideSetImage, decideUndo } from '../spec-edits.ts';
import { sendApproval } from '../commands/approve.ts';
import { sendRequest } from '../commands/send-request.ts';
import { sendSpecChange, templateHolder } from '../commands/send-spec.ts';

export interface ActionDeps {
  readonly deps: CliDeps;
  readonly client: KubeClient;
}

export interface ActionRow {
  readonly label: string;
  /** The confirmation's question, about `name`. */
  readonly confirm: (name: string) => string;
  /** What it does, shown beside an enabled button. */
  readonly does: string;
  /** Undefined when it applies now; else why not, as the plugin would say it. */
  readonly refusal: (ro: Rollout, now: number) => string | undefined;
  readonly inputs?: (ro: Rollout) => readonly ActionInput[];
  readonly send: (ctx: ActionDeps, req: ActionRequest) => Promise<unknown>;
}

/** How long an approval waits for the controller's answer (the plugin's default). */
const APPROVAL_ANSWER_MS = 30_000;
const GITOPS =
  ' It writes spec, which Git owns under GitOps: a sync puts Git’s template back; revert in Git instead.';

/** A status request (promote, pause, abort…): sendRequest with the plugin's decision. */
function statusRow(
  row: Omit<ActionRow, 'refusal' | 'send'>,
  decide: (ro: Rollout, now: number) => Decision,
): ActionRow {
  return {
    ...row,
    refusal: (ro, now) => refusalOf(decide(ro, now)),
    send: ({ deps, client }, req) =>
      sendRequest(deps, client, req.namespace, req.name, (ro) => decide(ro, deps.now())),
  };
}

function refusalOf(
  d: { kind: 'patch' | 'create' } | { kind: 'noop' | 'error'; message: string },
): string | undefined {
  return d.kind === 'noop' || d.kind === 'error' ? d.message : undefined;
}

/** Whether the step waits for this decision; who decides does not change that. */
const NOBODY = { username: '', groups: [] };

function approvalRow(decision: RequestDecision & ('Approve' | 'Reject')): ActionRow {
  const approve = decision === 'Approve';
  return {
    label: approve ? 'Approve' : 'Reject',
    confirm: (n) =>
      approve ? `Approve the step ${n} waits at?` : `Reject the step ${n} waits at (aborts it)?`,
    does: approve
      ? 'Record your approval of the step, with your name (kubectl stepwise approve).'
      : 'Record your rejection, with your name: the update is aborted (kubectl stepwise reject).',
    refusal: (ro, now) => refusalOf(decideApproval(ro, NOBODY, decision, undefined, now)),
    inputs: () => [
      { name: 'comment', label: 'Comment', required: false, placeholder: 'why (optional)' },
    ],
    send: ({ deps, client }, req) =>
      sendApproval(
        deps,
        client,
        req.namespace,
        req.name,
        decision,
        req.inputs?.comment || undefined,
        APPROVAL_ANSWER_MS,
      ),
  };
}

const containerNames = (ro: Rollout): string[] =>
  (ro.spec.template?.spec?.containers ?? []).map((c) => c.name);

const setImageRow: ActionRow = {
  label: 'Set image',
  confirm: (n) => `Set an image of ${n} (a new revision, rolled out by its steps)?`,
  does: `Replace a container's image in the pod template (kubectl stepwise set image).${GITOPS}`,
  refusal: () => undefined,
  inputs: (ro) => {
    const names = containerNames(ro);
    return [
      // A workloadRef's template is the referent's: its names are not in the Rollout.
      names.length > 0
        ? { name: 'container', label: 'Container', required: true, options: [...names, '*'] }
        : { name: 'container', label: 'Container', required: true, placeholder: '* for every one' },
      { name: 'image', label: 'Image', required: true, placeholder: 'registry/app:tag' },
    ];
  },
  send: ({ deps, client }, req) => {
    const container = req.inputs?.container ?? '';
    const image = req.inputs?.image ?? '';
    if (container === '' || image === '' || /\s/.test(image)) {
      throw new CliError('set image needs a container (or *) and an image without spaces');
    }
    return sendSpecChange(deps, client, req.namespace, req.name, async (ro) =>
      decideSetImage(
        ro,
        new Map([[container, image]]),
        await templateHolder(client, req.namespace, ro),
      ),
    );
  },
};

const undoRow: ActionRow = {
  label: 'Undo',
  confirm: (n) => `Roll ${n} back to an earlier revision's pod template?`,
  does: `Copy an earlier revision's pod template into the Rollout (kubectl stepwise undo).${GITOPS}`,
  refusal: () => undefined,
  inputs: () => [
    { name: 'revision', label: 'Revision', required: false, placeholder: 'the previous one' },
  ],
  send: ({ deps, client }, req) => {
    const given = req.inputs?.revision?.trim() ?? '';
    if (given !== '' && !/^\d{1,9}$/.test(given)) {
      throw new CliError(`invalid revision "${given}": use a revision number`);
    }
    const toRevision = given === '' || Number(given) === 0 ? undefined : Number(given);
    return sendSpecChange(deps, client, req.namespace, req.name, async (ro) => {
      const { items } = await client.listReplicaSets(req.namespace, POD_TEMPLATE_HASH_LABEL);
      return decideUndo(ro, items, toRevision, await templateHolder(client, req.namespace, ro));
    });
  },
};

export const ACTIONS: Record<ActionName, ActionRow> = {
  promote: statusRow(
    {
      label: 'Promote',
      confirm: (n) => `Promote ${n}?`,
      does: 'Resume the pause, or skip the current step (kubectl stepwise promote).',
    },
    (ro) => decidePromote(ro, { full: false }),
  ),
  'promote-full': statusRow(
    {
      label: 'Promote full',
      confirm: (n) => `Promote ${n} fully, skipping every remaining step?`,
      does: 'Skip all remaining steps, pauses and analyses (kubectl stepwise promote --full).',
    },
    (ro) => decidePromote(ro, { full: true }),
  ),
  pause: statusRow(
    {
      label: 'Pause',
      confirm: (n) => `Pause ${n} at its current step?`,
      does: 'Hold it at its step until resumed (kubectl stepwise pause; status only).',
    },
    (ro, now) => decidePause(ro, now),
  ),
  resume: statusRow(
    {
      label: 'Resume',
      confirm: (n) => `Resume ${n}?`,
      does: 'Take back a pause made with Pause (kubectl stepwise resume).',
    },
    (ro) => decideResume(ro),
  ),
  abort: statusRow(
    {
      label: 'Abort',
      confirm: (n) => `Abort the update of ${n} and go back to stable?`,
      does: 'Send the stable version back to full and the new one to zero (kubectl stepwise abort).',
    },
    (ro) => decideAbort(ro),
  ),
  retry: statusRow(
    {
      label: 'Retry',
      confirm: (n) => `Retry the aborted update of ${n} from its first step?`,
      does: 'Start the aborted update again (kubectl stepwise retry).',
    },
    (ro) => decideRetry(ro),
  ),
  approve: approvalRow('Approve'),
  reject: approvalRow('Reject'),
  restart: {
    label: 'Restart',
    confirm: (n) => `Restart the pods of ${n}?`,
    does: 'Replace every pod created before now, within maxUnavailable (kubectl stepwise restart).',
    refusal: (ro, now) => refusalOf(decideRestart(ro, now)),
    send: ({ deps, client }, req) =>
      sendSpecChange(deps, client, req.namespace, req.name, (ro) => decideRestart(ro, deps.now())),
  },
  'set-image': setImageRow,
  undo: undoRow,
};
