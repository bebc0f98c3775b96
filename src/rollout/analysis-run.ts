// Moved to src/api/analysis-run.ts: pure rules the kubectl plugin's offline lint shares with the
// controller. Re-exported here so the planner's imports stay as they were.
export * from '../api/analysis-run.ts';
