/**
 * For the demo's blue-green act: four `kubectl get -w` streams (the Rollout, its ReplicaSets, its
 * Services, its Events) folded into one state, with a line printed for each change as it
 * happens, and a way to wait until that state says something. The Rollout, its Services and
 * its pods carry `app=<name>`, so one label selector finds them all.
 */
import { DemoError, dim, elapsed, seconds, streamLines } from './demo-kit.ts';
import type { LineStream } from './demo-kit.ts';

export interface ReplicaSetView {
  readonly name: string;
  /** The image's tag: what a reader calls the version (1.0, 2.0). */
  readonly version: string;
  readonly revision: string;
  readonly desired: number;
  readonly available: number;
  /** The stepwise.dev/scale-down-deadline annotation, if any. */
  readonly deadline: string;
  /** When `desired` last changed (Date.now() as the watch reported it). */
  readonly resizedAt: number;
}

export interface RolloutView {
  readonly phase: string;
  readonly pauses: readonly string[];
  readonly message: string;
  readonly stableRS: string;
  readonly currentPodHash: string;
  readonly activeSelector: string;
  readonly previewSelector: string;
}

export interface ServiceView {
  /** The pod-template hash it selects ('' for none). */
  readonly hash: string;
  /** When that hash was first seen. */
  readonly since: number;
}

export interface BlueGreenState {
  /** By pod-template hash. */
  readonly replicaSets: ReadonlyMap<string, ReplicaSetView>;
  /** By Service name. */
  readonly services: ReadonlyMap<string, ServiceView>;
  /** The last status the controller wrote for the current spec. */
  readonly rollout: RolloutView | undefined;
  /** Reason and message of each Event about the Rollout, in order of arrival. */
  readonly events: readonly { readonly reason: string; readonly message: string }[];
}

const HASH = 'rollouts-pod-template-hash';
const line = (...fields: string[]): string => fields.map((f) => `{${f}}`).join('|') + '{"\\n"}';
const RS_FIELDS = line(
  '.metadata.labels.rollouts-pod-template-hash',
  '.metadata.name',
  '.spec.template.spec.containers[0].image',
  '.metadata.annotations.stepwise\\.dev/revision',
  '.spec.replicas',
  '.status.availableReplicas',
  '.metadata.annotations.stepwise\\.dev/scale-down-deadline',
);
const SERVICE_FIELDS = line('.metadata.name', `.spec.selector.${HASH}`);
const ROLLOUT_FIELDS = line(
  '.metadata.generation',
  '.status.observedGeneration',
  '.status.phase',
  '.status.pauseConditions[*].reason',
  '.status.stableRS',
  '.status.currentPodHash',
  '.status.blueGreen.activeSelector',
  '.status.blueGreen.previewSelector',
  '.status.message',
);
const EVENT_FIELDS = line('.metadata.name', '.reason', '.message');

const say = (text: string): void => console.log(`   ${dim(elapsed().padStart(7))}  ${text}`);

export class BlueGreenWatch {
  readonly #ns: string;
  readonly #app: string;
  readonly #replicaSets = new Map<string, ReplicaSetView>();
  readonly #services = new Map<string, ServiceView>();
  #rollout: RolloutView | undefined;
  readonly #events: { reason: string; message: string }[] = [];
  readonly #eventNames = new Set<string>();
  #streams: LineStream[] = [];
  readonly #waiters = new Set<() => void>();
  #failure: Error | undefined;

  constructor(namespace: string, app: string) {
    this.#ns = namespace;
    this.#app = app;
  }

  get state(): BlueGreenState {
    return {
      replicaSets: this.#replicaSets,
      services: this.#services,
      rollout: this.#rollout,
      events: this.#events,
    };
  }

  /** "5d8f9c (2.0)": a hash as a reader knows it. */
  describe(hash: string): string {
    if (hash === '') return 'nothing';
    const rs = this.#replicaSets.get(hash);
    return rs ? `${hash} (${rs.version})` : hash;
  }

  start(): void {
    const watch = (args: string[], template: string, onLine: (f: string[]) => void): void => {
      const stream = streamLines(
        'kubectl',
        ['-n', this.#ns, 'get', ...args, '--watch', '-o', `jsonpath=${template}`],
        (text) => {
          onLine(text.split('|'));
          for (const wake of [...this.#waiters]) wake();
        },
      );
      this.#streams.push(stream);
      void stream.exited.then((code) => {
        if (!this.#streams.includes(stream)) return; // stopped by us
        this.#failure = new DemoError(
          `the watch \`kubectl get ${args.join(' ')}\` ended (exit ${code}): ${stream.stderr()}`,
        );
        for (const wake of [...this.#waiters]) wake();
      });
    };
    const selector = `app=${this.#app}`;
    watch(['replicasets', '-l', selector], RS_FIELDS, (f) => this.#onReplicaSet(f));
    watch(['services', '-l', selector], SERVICE_FIELDS, (f) => this.#onService(f));
    watch(['rollouts.stepwise.dev', '-l', selector], ROLLOUT_FIELDS, (f) => this.#onRollout(f));
    watch(
      [
        'events',
        '--field-selector',
        `involvedObject.kind=Rollout,involvedObject.name=${this.#app}`,
      ],
      EVENT_FIELDS,
      (f) => this.#onEvent(f),
    );
  }

  stop(): void {
    const streams = this.#streams;
    this.#streams = [];
    for (const s of streams) s.stop();
  }

  /** Resolves with the state once `pred` holds for it (now or after a later change). */
  until(
    what: string,
    pred: (s: BlueGreenState) => boolean,
    timeoutMs = 60_000,
  ): Promise<BlueGreenState> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.#failure) return finish(this.#failure);
        if (pred(this.state)) finish();
      };
      const timer = setTimeout(
        () => finish(new DemoError(`no ${what} within ${seconds(timeoutMs)}`)),
        timeoutMs,
      );
      const finish = (err?: Error): void => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        if (err) reject(err);
        else resolve(this.state);
      };
      this.#waiters.add(check);
      check();
    });
  }

  #onReplicaSet(f: string[]): void {
    const [hash = '', name = '', image = '', revision = '', desired = '', available = ''] = f;
    const deadline = f[6] ?? '';
    if (hash === '') return;
    const before = this.#replicaSets.get(hash);
    const now = Date.now();
    const rs: ReplicaSetView = {
      name,
      version: image.slice(image.lastIndexOf(':') + 1),
      revision,
      desired: Number(desired || 0),
      available: Number(available || 0),
      deadline,
      resizedAt:
        before === undefined || before.desired !== Number(desired || 0) ? now : before.resizedAt,
    };
    this.#replicaSets.set(hash, rs);
    const who = `ReplicaSet ${name} (${rs.version}, revision ${revision})`;
    const pods = `${rs.desired} desired, ${rs.available} available`;
    if (before === undefined) say(`${who} created: ${pods}`);
    else if (before.desired !== rs.desired || before.available !== rs.available)
      say(`${who}: ${pods}`);
    if (deadline !== '' && before?.deadline !== deadline) {
      const inSeconds = seconds(Math.max(0, Date.parse(deadline) - now));
      say(`${who}: scale-down-deadline ${deadline} (in ${inSeconds})`);
    }
  }

  #onService(f: string[]): void {
    const [name = '', hash = ''] = f;
    const before = this.#services.get(name);
    if (before?.hash === hash) return;
    this.#services.set(name, { hash, since: Date.now() });
    say(
      before === undefined
        ? `Service ${name} selects ${this.describe(hash)}`
        : `Service ${name}: selector switched from ${this.describe(before.hash)} to ${this.describe(hash)}`,
    );
  }

  #onRollout(f: string[]): void {
    const [generation, observed, phase = '', pauses = '', stableRS = '', current = ''] = f;
    if (generation !== observed) return; // the controller has yet to see this spec
    const view: RolloutView = {
      phase,
      pauses: pauses.split(' ').filter((p) => p !== ''),
      stableRS,
      currentPodHash: current,
      activeSelector: f[6] ?? '',
      previewSelector: f[7] ?? '',
      message: f.slice(8).join('|'),
    };
    const before = this.#rollout;
    this.#rollout = view;
    const summary = (v: RolloutView | undefined): string =>
      v === undefined
        ? ''
        : `${v.phase}${v.pauses.length > 0 ? ` (pause ${v.pauses.join(', ')})` : ''}` +
          `${v.message ? `: ${v.message}` : ''}; stable ${this.describe(v.stableRS)}`;
    if (summary(before) !== summary(view)) say(`Rollout ${this.#app}: ${summary(view)}`);
  }

  #onEvent(f: string[]): void {
    const [name = '', reason = ''] = f;
    if (this.#eventNames.has(name)) return; // a repeat of an Event already shown
    this.#eventNames.add(name);
    const message = f.slice(2).join('|');
    this.#events.push({ reason, message });
    say(`Event ${reason}: ${message}`);
  }
}
