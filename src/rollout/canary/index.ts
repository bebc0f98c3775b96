/**
 * The canary strategy's surface: the strategy itself (for the dispatch table) and its step
 * vocabulary (for the public surface). Everything else in canary/ is its own business.
 */
export { canaryStrategy } from './plan.ts';
export { setWeightAt } from './steps.ts';
export { STEP_KINDS, kindOf, stepLabel } from './step-kinds.ts';
export type { StepKind, StepKindRow } from './step-kinds.ts';
