// Moved to src/api/intorpercent.ts: pure rules the kubectl plugin's offline lint shares with the
// controller. Re-exported here so the planner's imports stay as they were.
export * from '../api/intorpercent.ts';
