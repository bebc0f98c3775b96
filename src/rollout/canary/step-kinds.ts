/**
 * What each kind of canary step means, in one table: its label, what it sets, when it is
 * complete, whether waiting at it is on purpose, and its rules beyond the schema. The planner
 * (step-decision.ts, plan.ts), the labels of events and the plugin (stepLabel), and validation
 * (validate.ts) read this table; a new step kind is one row here plus its schema and, if it
 * completes in a new way, one case in step-decision.ts. TypeScript holds the table to every kind
 * the schema has.
 */
import type { CanaryStep } from '../../api/index.ts';
import { parsePauseDuration } from '../../api/pause-duration.ts';
import { approvalProblems } from '../approval-people.ts';

export type StepKind = keyof CanaryStep;

type Value<K extends StepKind> = NonNullable<CanaryStep[K]>;

export interface StepRuleContext {
  /** The most setWeight may ask for: trafficRouting.maxTrafficWeight, default 100. */
  readonly maxWeight: number;
}

export interface StepKindRow<K extends StepKind> {
  /** Human label for events and the plugin: "setWeight: 20", "pause: 30s". */
  readonly label: (value: Value<K>) => string;
  /** What the step sets, for itself and the steps after it (until another sets it again):
   *  the canary's weight, its pod count, a managed route; or nothing. */
  readonly sets: 'weight' | 'canaryScale' | 'headerRoute' | 'mirrorRoute' | 'nothing';
  /** When the step is behind: once the ReplicaSets stand at the step's counts, once its pause
   *  ends (its duration or a person), once its analysis run passed, once people approved. */
  readonly completes: 'atCounts' | 'pauseEnds' | 'analysisPassed' | 'approved';
  /** Time spent at it is not lack of progress (the progress deadline does not run out). */
  readonly waitsOnPurpose: boolean;
  /** Its rules beyond the schema, one line each; `at` is the step's field path. */
  readonly problems: (value: Value<K>, at: string, c: StepRuleContext) => string[];
}

const none = (): string[] => [];

export const STEP_KINDS: { readonly [K in StepKind]: StepKindRow<K> } = {
  setWeight: {
    label: (weight) => `setWeight: ${weight}`,
    sets: 'weight',
    completes: 'atCounts',
    waitsOnPurpose: false,
    problems: (weight, at, c) =>
      weight < 0 || weight > c.maxWeight
        ? [`${at}.setWeight: must be between 0 and ${c.maxWeight}, got ${weight}`]
        : [],
  },
  pause: {
    label: (pause) => {
      const d = pause.duration;
      return d === undefined ? 'pause' : `pause: ${typeof d === 'number' ? `${d}s` : d}`;
    },
    sets: 'nothing',
    completes: 'pauseEnds',
    waitsOnPurpose: true,
    problems: (pause, at) => {
      if (pause.duration === undefined) return [];
      const parsed = parsePauseDuration(pause.duration);
      return parsed.ok ? [] : [`${at}.pause.duration: ${parsed.error}`];
    },
  },
  setCanaryScale: {
    label: (s) => {
      if (s.replicas !== undefined) return `setCanaryScale: replicas ${s.replicas}`;
      if (s.weight !== undefined) return `setCanaryScale: weight ${s.weight}`;
      return 'setCanaryScale: matchTrafficWeight';
    },
    sets: 'canaryScale',
    completes: 'atCounts',
    waitsOnPurpose: false,
    problems: (scale, at) => {
      const problems: string[] = [];
      const set = [scale.replicas, scale.weight, scale.matchTrafficWeight].filter(
        (v) => v !== undefined,
      );
      if (set.length !== 1) {
        problems.push(
          `${at}.setCanaryScale: must set exactly one of replicas, weight, matchTrafficWeight`,
        );
      }
      if (scale.replicas !== undefined && scale.replicas < 0) {
        problems.push(`${at}.setCanaryScale.replicas: must not be negative`);
      }
      if (scale.weight !== undefined && (scale.weight < 0 || scale.weight > 100)) {
        problems.push(`${at}.setCanaryScale.weight: must be between 0 and 100`);
      }
      return problems;
    },
  },
  analysis: {
    label: (analysis) => `analysis: ${analysis.templates.map((t) => t.templateName).join(', ')}`,
    sets: 'nothing',
    completes: 'analysisPassed',
    waitsOnPurpose: false,
    // Its templates are checked with the background analysis (validate.ts, analysisProblem).
    problems: none,
  },
  setHeaderRoute: {
    // No label of its own yet: events have always said "unknown" here, and what users see
    // does not change in a refactoring.
    label: () => 'unknown',
    sets: 'headerRoute',
    completes: 'atCounts',
    waitsOnPurpose: false,
    // Checked against the router's managedRoutes with the rest of trafficRouting.
    problems: none,
  },
  setMirrorRoute: {
    label: () => 'unknown',
    sets: 'mirrorRoute',
    completes: 'atCounts',
    waitsOnPurpose: false,
    problems: none,
  },
  approval: {
    label: (approval) => {
      const n = approval.minApprovals ?? 1;
      return n === 1 ? 'approval' : `approval: ${n} approvers`;
    },
    sets: 'nothing',
    completes: 'approved',
    waitsOnPurpose: true,
    problems: (approval, at) => approvalProblems(approval, `${at}.approval`),
  },
};

/** The kind of a step: the one action it sets (the schema allows exactly one). */
export function kindOf(step: CanaryStep | undefined): StepKind | undefined {
  if (step === undefined) return undefined;
  return (Object.keys(STEP_KINDS) as StepKind[]).find((k) => step[k] !== undefined);
}

/** The table's row for a step with the step's value, typed together. */
function withRow<R>(
  step: CanaryStep | undefined,
  use: <K extends StepKind>(row: StepKindRow<K>, value: Value<K>) => R,
): R | undefined {
  const kind = kindOf(step);
  if (step === undefined || kind === undefined) return undefined;
  return use(STEP_KINDS[kind] as StepKindRow<typeof kind>, step[kind] as Value<typeof kind>);
}

/** Human label for events and the plugin: "setWeight: 20", "pause: 30s", "pause"; "done" past
 *  the last step. */
export function stepLabel(step: CanaryStep | undefined): string {
  if (step === undefined) return 'done';
  return withRow(step, (row, value) => row.label(value)) ?? 'unknown';
}

/** The step's rules beyond the schema; `at` is its field path. */
export function stepProblems(step: CanaryStep, at: string, c: StepRuleContext): string[] {
  return withRow(step, (row, value) => row.problems(value, at, c)) ?? [];
}
