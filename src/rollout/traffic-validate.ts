// Moved to src/api/traffic-validate.ts: pure rules the kubectl plugin's offline lint shares with the
// controller. Re-exported here so the planner's imports stay as they were.
export * from '../api/traffic-validate.ts';
