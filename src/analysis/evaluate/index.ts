// Pure evaluation of AnalysisRuns (no I/O, no clock: `now` is passed in). The shell takes the
// measurements `dueMeasurements` asks for, then writes what `reconcileRun` returns.
export {
  dueMeasurements,
  reconcileRun,
  isTerminating,
  dryRunMetrics,
  retentionLimit,
  type RunInput,
  type DueMeasurement,
  type TakenMeasurement,
  type RunEvent,
  type RunOutcome,
} from './run.ts';
export {
  judge,
  finishMeasurement,
  type ConditionEvaluator,
  type MeasuredPhase,
  type ProviderOutcome,
  type Verdict,
} from './measurement.ts';
export {
  assessMetric,
  limitBreached,
  recordMeasurement,
  isCompleted,
  isWorse,
  type MetricAssessment,
} from './metric.ts';
export { dueNow, nextAt, type DueKind, type ScheduleContext } from './schedule.ts';
export { analysisSpecProblems, metricProblems } from './validate.ts';
export { parseDuration } from './duration.ts';
export * from './defaults.ts';
