// Moved to src/api/selector.ts: pure rules the kubectl plugin's offline lint shares with the
// controller. Re-exported here so the planner's imports stay as they were.
export * from '../api/selector.ts';
