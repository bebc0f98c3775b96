export * from './keys.ts';
export * from './reasons.ts';
export * from './errors.ts';
export * from './rollout.ts';
export * from './analysis.ts';
export { rolloutSpecProblems, fieldPath } from './validate.ts';
export { analysisTemplateSpecProblems, analysisRunSpecProblems } from './analysis-validate.ts';
export type * from './k8s.ts';
