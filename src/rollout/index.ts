/**
 * The pure core's public surface: what the shell, the plugin and the demo may use. Everything
 * here is a function of plain values (no I/O, no clock).
 */
export { plan } from './plan.ts';
export type { Observed, Plan, Write } from './types.ts';
export { releaseService, servicesOf } from './services.ts';
export { strategyKeyOf } from './strategies.ts';
export type { ServiceRef, ServiceRole } from './services.ts';
// The canary's step vocabulary: what each kind of step means, its label, the weight at an index.
export { STEP_KINDS, kindOf, stepLabel, setWeightAt } from './canary/index.ts';
export type { StepKind, StepKindRow } from './canary/index.ts';
export { rolloutRuleProblems } from './validate.ts';
export type { TemplateMaps } from './validate.ts';
export { hashOf } from './replicasets.ts';
export { templateHash } from './revision.ts';
export { declaredTemplate } from './template-match.ts';
export { countDecisions } from './approval.ts';
export { approvalGates, approvalGateAt, gatePlace, stepCountOf } from './approval-gates.ts';
export type { ApprovalGate } from './approval-gates.ts';
export { deploymentRefOf, needsDeployment, planWorkloadRestore } from './workload-restore.ts';
export type { DeploymentView, WorkloadPlan, WorkloadStep } from './workload-restore.ts';
// spec.workloadRef: the effective Rollout the referent makes (the shell reads traffic with it).
export { resolveWorkload, describeWorkload } from './workload-ref/index.ts';
export type { ObservedWorkload, Referent, Resolution } from './workload-ref/index.ts';
// Serving argoproj.io in place: whether Argo's own controller still runs beside us.
export { argoControllerRunning } from './argo-controller.ts';
export type { ArgoControllerLease } from './argo-controller.ts';
