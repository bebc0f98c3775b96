/**
 * What the dashboard's server sends the page (server-sent events and action answers): plain
 * JSON, every string taken from the cluster already sanitised (src/cli/sanitise.ts) and shown by
 * the page as text only. Times are epoch milliseconds; the page counts down from `now`.
 */
import type { RolloutInfo } from '../../cli/render/info.ts';
import type { StrategyLine } from '../../cli/render/strategies/index.ts';

export type { RolloutInfo, StrategyLine };

export type Phase = 'Healthy' | 'Progressing' | 'Paused' | 'Degraded';
export const PHASES: readonly Phase[] = ['Progressing', 'Paused', 'Degraded', 'Healthy'];

/** One Rollout in the list. */
export interface RowView {
  /** `namespace/name` */
  readonly key: string;
  readonly namespace: string;
  readonly name: string;
  readonly phase: Phase;
  readonly message: string;
  /** `Canary`, `BlueGreen` */
  readonly strategy: string;
  /** `2/5`, '-' without steps */
  readonly step: string;
  readonly setWeight: string;
  readonly images: readonly string[];
  /** Why a person is wanted (Degraded, awaiting approval, waits for promote…); absent: nobody. */
  readonly needsMe?: string;
  /** Waiting at an approval step: whom it asks (absent: not waiting for approval). */
  readonly approval?: ApprovalAsk;
}

/** Whom an approval step asks; no users and no groups: anyone RBAC lets approve. */
export interface ApprovalAsk {
  readonly users: readonly string[];
  readonly groups: readonly string[];
  /** Who approved in this wait already. */
  readonly decided: readonly string[];
}

/** The person the page acts as (the plugin's user, or the signed-in one). */
export interface Viewer {
  readonly username: string;
  readonly groups: readonly string[];
}

export type StepState = 'done' | 'current' | 'pending';

export interface StepView {
  readonly label: string;
  readonly state: StepState;
  /** A timed pause running at this step ends then (epoch ms). */
  readonly endsAt?: number;
  /** The step waits for a person (an untimed pause, an approval). */
  readonly waitsForPerson?: boolean;
}

/** The strategy's own part of the Rollout view; the page picks a component by `kind`. */
export type StrategyPart =
  | {
      readonly kind: 'canary';
      readonly lines: readonly StrategyLine[];
      readonly steps: readonly StepView[];
      readonly setWeight: number;
      readonly actualWeight: number;
    }
  | {
      readonly kind: 'blueGreen';
      readonly lines: readonly StrategyLine[];
      /** The pause before the switch promotes itself then (epoch ms). */
      readonly endsAt?: number;
    };

export interface ConditionView {
  readonly type: string;
  readonly status: string;
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime: string;
}

export interface EventView {
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  readonly at: number | undefined;
  readonly count: number;
}

export const ACTION_NAMES = [
  'promote',
  'promote-full',
  'pause',
  'resume',
  'abort',
  'retry',
  'approve',
  'reject',
  'restart',
  'set-image',
  'undo',
] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

/** What an action asks for beside the confirmation (the plugin command's arguments). */
export const ACTION_INPUTS = ['comment', 'container', 'image', 'revision'] as const;
export type ActionInputName = (typeof ACTION_INPUTS)[number];
/** Longest value an input may carry (the plugin's --comment limit). */
export const MAX_INPUT_LENGTH = 1024;

export interface ActionInput {
  readonly name: ActionInputName;
  readonly label: string;
  /** A select of these values when given, else a text field. */
  readonly options?: readonly string[];
  readonly required: boolean;
  /** Shown in an empty text field: what leaving it empty means. */
  readonly placeholder?: string;
}

/** A button on the Rollout view: what it does, the question it asks, and whether it applies. */
export interface ActionOffer {
  readonly action: ActionName;
  readonly label: string;
  readonly confirm: string;
  readonly enabled: boolean;
  /** Why it is disabled (the plugin's own refusal), or what it will do. */
  readonly note: string;
  /** Asked in the confirmation (absent: none). */
  readonly inputs?: readonly ActionInput[];
}

export interface ChartPoint {
  readonly at: number;
  readonly value: number;
  /** The measurement's phase: Failed and Error points are marked. */
  readonly phase: string;
}

/** A condition drawn as a line: `op value` is where the condition holds. */
export interface Threshold {
  readonly kind: 'success' | 'failure';
  readonly op: '<' | '<=' | '>' | '>=';
  readonly value: number;
  readonly text: string;
}

/** One metric of one AnalysisRun, as a chart. */
export interface MetricChart {
  readonly run: string;
  readonly metric: string;
  readonly phase: string;
  readonly points: readonly ChartPoint[];
  readonly thresholds: readonly Threshold[];
  /** The conditions as written (shown as text, drawn or not). */
  readonly conditions: readonly string[];
  readonly query?: string;
  /** The last measured value, as text. */
  readonly last?: string;
  readonly measurements: number;
}

export interface DetailView {
  readonly info: RolloutInfo;
  readonly strategy: StrategyPart;
  readonly conditions: readonly ConditionView[];
  readonly events: readonly EventView[];
  /** The Rollout's newest AnalysisRuns' metrics (MAX_CHARTED_RUNS runs at most). */
  readonly analysis: readonly MetricChart[];
  readonly actions: readonly ActionOffer[];
  readonly needsMe?: string;
}

/** Watches that failed (forbidden, not served): shown on every page, never hidden. */
export interface Problems {
  readonly problems: readonly string[];
}

export interface ListPayload extends Problems {
  readonly now: number;
  /** `all namespaces` or `namespace team-a` */
  readonly scope: string;
  readonly rows: readonly RowView[];
  /** Whom the page acts as, when known: "awaiting my approval" is computed for them. */
  readonly viewer?: Viewer;
}

export interface DetailPayload extends Problems {
  readonly now: number;
  readonly key: string;
  /** null: no such Rollout (deleted, or never seen in the watched namespaces). */
  readonly detail: DetailView | null;
}

export interface ActionRequest {
  readonly namespace: string;
  readonly name: string;
  readonly action: ActionName;
  /** The values of the offer's inputs (absent: none given). */
  readonly inputs?: Readonly<Partial<Record<ActionInputName, string>>>;
}

export interface ActionResult {
  readonly ok: boolean;
  readonly message: string;
}
