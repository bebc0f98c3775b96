/** Taking over what Argo Rollouts left running: the planner's pass before any strategy's. */
export { planAdoption } from './plan.ts';
export { sortClaims } from './claims.ts';
export type { Claims, HeldBy } from './claims.ts';
