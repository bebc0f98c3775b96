/**
 * For demo.ts: follows a Rollout with `kubectl get -w` and prints a line each time its step,
 * phase, canary weight or updated pods change, until a condition holds. Only states the
 * controller has produced for the current spec count (status.observedGeneration ==
 * metadata.generation); anything older is what the Rollout looked like before it noticed.
 */
import type { CanaryStep } from '../src/api/index.ts';
import { parsePauseDuration } from '../src/api/pause-duration.ts';
import { stepLabel } from '../src/rollout/index.ts';
import { DemoError, dim, elapsed, seconds, streamLines } from './demo-kit.ts';

export interface RolloutState {
  readonly generation: string;
  readonly observedGeneration: string;
  readonly phase: string;
  readonly message: string;
  /** status.currentStepIndex: the step being carried out; steps.length once all are done */
  readonly step: number | undefined;
  /** status.canary.weights.canary.weight: the share of ready pods that run the new version */
  readonly weight: number | undefined;
  readonly updated: number;
  readonly replicas: number;
  readonly pauseStartTime: string;
  readonly abort: boolean;
}

// In this order, the message last: it is free text. `|`, not a tab, between them: kubectl runs
// watch output through a tabwriter, which turns tabs into spaces.
const FIELDS = [
  '.metadata.generation',
  '.status.observedGeneration',
  '.status.phase',
  '.status.currentStepIndex',
  '.status.canary.weights.canary.weight',
  '.status.updatedReplicas',
  '.spec.replicas',
  '.status.pauseConditions[*].startTime',
  '.status.abort',
  '.status.message',
];
const TEMPLATE = FIELDS.map((f) => `{${f}}`).join('|') + '{"\\n"}';

function parse(line: string): RolloutState {
  const f = line.split('|');
  const text = (i: number): string => f[i] ?? '';
  const int = (i: number): number | undefined => (text(i) === '' ? undefined : Number(text(i)));
  return {
    generation: text(0),
    observedGeneration: text(1),
    phase: text(2),
    step: int(3),
    weight: int(4),
    updated: int(5) ?? 0,
    replicas: int(6) ?? 0,
    pauseStartTime: text(7).split(' ')[0] ?? '',
    abort: text(8) === 'true',
    message: f.slice(9).join('|'),
  };
}

/** A step as the Events and the plugin name it (stepLabel), plus what the story tells a newcomer:
 *  a pause without a duration waits for a promote, and an approval's time limit. */
export function describeStep(step: CanaryStep | undefined): string {
  if (step === undefined) return 'all steps done';
  const label = stepLabel(step);
  if (step.pause !== undefined && step.pause.duration === undefined) {
    return `${label} (until promoted)`;
  }
  const timeout = step.approval?.timeout;
  return timeout === undefined ? label : `${label} (within ${timeout})`;
}

const COLUMNS: [string, number][] = [
  ['TIME', 9],
  ['STEP', 6],
  ['CURRENT STEP', 24],
  ['PHASE', 13],
  ['WEIGHT', 8],
  ['UPDATED', 9],
  ['MESSAGE', 0],
];

/** Values padded to the widths of the columns from `first` on. */
const cells = (values: readonly string[], first = 0): string =>
  values.map((v, i) => v.padEnd(COLUMNS[first + i]?.[1] ?? 0)).join('');

export class Timeline {
  readonly #namespace: string;
  readonly #name: string;
  readonly #steps: readonly CanaryStep[];
  /** The last line printed, without its time: a state is printed once however often it is seen. */
  #last = '';

  constructor(namespace: string, name: string, steps: readonly CanaryStep[]) {
    this.#namespace = namespace;
    this.#name = name;
    this.#steps = steps;
  }

  /** The columns after TIME for a state. */
  #describe(s: RolloutState): string[] {
    const n = this.#steps.length;
    const i = s.step;
    const current = s.abort
      ? s.phase === 'Degraded'
        ? 'aborted'
        : 'abort requested'
      : i === undefined
        ? ''
        : describeStep(this.#steps[i]);
    let message = s.message;
    const pause = i === undefined ? undefined : this.#steps[i]?.pause;
    if (s.phase === 'Paused' && s.pauseStartTime && pause?.duration !== undefined) {
      const ms = parsePauseDuration(pause.duration);
      if (ms.ok) {
        const end = new Date(Date.parse(s.pauseStartTime) + ms.value).toTimeString().slice(0, 8);
        message += `, resumes by itself at ${end}`;
      }
    }
    return [
      i === undefined ? '-' : `${Math.min(i, n)}/${n}`,
      current,
      s.phase || '-',
      s.weight === undefined ? '-' : `${s.weight}%`,
      `${s.updated}/${s.replicas}`,
      message,
    ];
  }

  /**
   * Watches the Rollout, runs `action` (if any) once the watch has shown the state before it,
   * then prints the Rollout's changes (after the action's own output) until `until` holds for a
   * state the controller has produced for the current spec and that is not the state from
   * before the action; resolves with that state. The watch starts first so that no change is
   * missed: the controller often acts before the command that caused it has exited.
   */
  follow(
    what: string,
    until: (s: RolloutState) => boolean,
    action?: () => Promise<unknown>,
    timeoutMs = 60_000,
  ): Promise<RolloutState> {
    let header = false;
    let latest: RolloutState | undefined;
    /** Lines seen while the action runs, with when they were seen; undefined once it is over. */
    let queue: { at: string; line: string }[] | undefined = [];
    let first = true;
    return new Promise<RolloutState>((resolve, reject) => {
      let done = false;
      const finish = (result: RolloutState | Error): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        watch.stop();
        if (result instanceof Error) reject(result);
        else resolve(result);
      };
      const handle = (at: string, line: string, before: boolean): void => {
        if (done) return;
        const s = parse(line);
        if (s.observedGeneration !== s.generation) return; // the controller has yet to see it
        latest = s;
        const text = cells(this.#describe(s), 1).trimEnd();
        if (text !== this.#last) {
          if (!header) console.log(dim(`   ${cells(COLUMNS.map(([c]) => c)).trimEnd()}`));
          header = true;
          console.log(`   ${at.padEnd(COLUMNS[0]?.[1] ?? 0)}${text}`);
          this.#last = text;
        }
        if (!before && until(s)) finish(s);
      };
      const drain = (): void => {
        const lines = queue ?? [];
        queue = undefined;
        lines.forEach(({ at, line }, i) => handle(at, line, action !== undefined && i === 0));
      };
      const watch = streamLines(
        'kubectl',
        ['-n', this.#namespace, 'get', 'swro', this.#name, '--watch', '-o', `jsonpath=${TEMPLATE}`],
        (line) => {
          if (queue === undefined) return handle(elapsed(), line, false);
          queue.push({ at: elapsed(), line });
          if (!first) return;
          first = false;
          if (action === undefined) return drain();
          action().then(drain, (err: unknown) =>
            finish(err instanceof Error ? err : new Error(String(err))),
          );
        },
      );
      const timer = setTimeout(() => {
        const last = latest ? cells(this.#describe(latest), 1).trim() : 'not yet seen';
        finish(
          new DemoError(
            `no ${what} within ${seconds(timeoutMs)}; the Rollout was last: ${last.replace(/\s+/g, ' ')}`,
          ),
        );
      }, timeoutMs);
      void watch.exited.then((code) =>
        finish(
          new DemoError(
            `the watch on rollout ${this.#name} ended (exit ${code}) before ${what}: ${watch.stderr()}`,
          ),
        ),
      );
    });
  }
}
