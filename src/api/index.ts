export * from './keys.ts';
export * from './reasons.ts';
export * from './errors.ts';
export * from './rollout.ts';
export { rolloutSpecProblems, fieldPath } from './validate.ts';
export type * from './k8s.ts';
