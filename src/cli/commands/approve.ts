/**
 * `approve NAME [--comment TEXT]` and `reject NAME [--comment TEXT]`: create a RolloutApproval
 * for the step the Rollout waits at, as the user the API server says we are, then wait for the
 * controller's answer (Recorded, or Refused with its reason). The API server refuses an
 * approval that claims to be someone else (deploy/approvals/identity-policy.yaml).
 * `approve --break-glass` asks for decision Override: the step passes without its approvers, and
 * the API server admits it only from a holder of the break-glass right
 * (deploy/approvals/status-policy.yaml); the controller records it with the user's name.
 */
import type { Command } from 'commander';
import type { RequestDecision, RolloutApproval } from '../../api/approval.ts';
import { decideApproval } from '../approvals.ts';
import type { KubeClient, WatchStream } from '../client.ts';
import { println, type CliDeps } from '../context.ts';
import { CliError } from '../errors.ts';
import { clientFor, nameArgument, parseDurationFlag, toError, type Registrar } from './common.ts';

const MAX_COMMENT = 1024;

interface ApproveOptions {
  comment?: string;
  timeout: string;
  breakGlass?: boolean;
}

export const registerApprove: Registrar = (program, deps, act) => {
  for (const decision of ['Approve', 'Reject'] as const) {
    const verb = decision === 'Approve' ? 'approve' : 'reject';
    const command = program
      .command(verb)
      .description(
        decision === 'Approve'
          ? 'Approve the approval step a rollout waits at (recorded with your name)'
          : 'Reject the approval step a rollout waits at: the update is aborted',
      )
      .addArgument(nameArgument('rollout'))
      .option('-c, --comment <text>', 'why (kept in the rollout status)')
      .option('-t, --timeout <duration>', "how long to wait for the controller's answer", '30s');
    if (decision === 'Approve') {
      command.option(
        '--break-glass',
        'pass the step without its approvers (needs the break-glass right; recorded with your name)',
      );
    }
    command.action(
      act(async (name: string, opts: ApproveOptions, cmd: Command) => {
        const timeoutMs = parseDurationFlag(opts.timeout);
        if (timeoutMs === undefined) {
          throw new CliError(`invalid --timeout "${opts.timeout}": use a duration like 30s`);
        }
        if ((opts.comment?.length ?? 0) > MAX_COMMENT) {
          throw new CliError(`--comment must be at most ${MAX_COMMENT} characters`);
        }
        const { client, namespace } = await clientFor(deps, cmd);
        const asked = opts.breakGlass ? 'Override' : decision;
        return sendApproval(deps, client, namespace, name, asked, opts.comment, timeoutMs);
      }),
    );
  }
};

export async function sendApproval(
  deps: CliDeps,
  client: KubeClient,
  namespace: string,
  name: string,
  decision: RequestDecision,
  comment: string | undefined,
  timeoutMs: number,
): Promise<number> {
  const [ro, who] = await Promise.all([client.getRollout(namespace, name), client.whoAmI()]);
  const planned = decideApproval(ro, who, decision, comment, deps.now());
  if (planned.kind === 'error') throw new CliError(planned.message);
  const created = await client.createRolloutApproval(namespace, planned.body);
  const answer = await answerOf(client, namespace, created, timeoutMs);
  const what = { Approve: 'approval', Reject: 'rejection', Override: 'break-glass override' }[
    decision
  ];
  const step = planned.body.spec.step + 1;
  if (answer?.status?.phase === 'Recorded') {
    println(deps, `${what} of rollout '${name}' step ${step} recorded as ${who.username}`);
    return 0;
  }
  if (answer?.status?.phase === 'Refused') {
    throw new CliError(
      `${what} of rollout '${name}' refused (${answer.status.reason ?? 'Refused'}): ${answer.status.message ?? ''}`,
    );
  }
  throw new CliError(
    `created RolloutApproval ${created.metadata.name ?? ''}, but the controller did not answer within ${Math.round(timeoutMs / 1000)}s (is it running?)`,
  );
}

/**
 * Waits (a watch, no polling) until the controller answers on the approval's status. A watch
 * the server closes quietly is opened again from the last version seen; a failed one (the API
 * server went away) is the command's error, naming the server and the cause.
 */
function answerOf(
  client: KubeClient,
  namespace: string,
  created: RolloutApproval,
  timeoutMs: number,
): Promise<RolloutApproval | undefined> {
  if (created.status?.phase !== undefined) return Promise.resolve(created);
  return new Promise((resolve, reject) => {
    let resourceVersion = created.metadata.resourceVersion ?? '';
    let finished = false;
    let stream: WatchStream | undefined;
    const finish = (result: RolloutApproval | undefined | Error): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      stream?.stop();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    const open = (): void => {
      stream = client.watch(
        'rolloutapprovals',
        namespace,
        { fieldSelector: `metadata.name=${created.metadata.name ?? ''}`, resourceVersion },
        (type, object) => {
          if (type === 'ERROR') {
            const message = (object as { message?: string }).message ?? 'watch error';
            finish(new CliError(`watch rolloutapprovals: ${message}`));
            return;
          }
          const a = object as RolloutApproval;
          resourceVersion = a.metadata?.resourceVersion ?? resourceVersion;
          if (a.status?.phase !== undefined) finish(a);
        },
      );
      void stream.done.then((err) => {
        if (finished) return;
        if (err) finish(toError(err));
        else open();
      });
    };
    open();
  });
}
