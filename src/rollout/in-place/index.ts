/** Serving Argo Rollouts' own objects: taking over the status Argo's controller left, and
 *  standing aside while that controller still runs. */
export { planInPlaceTakeover } from './plan.ts';
export { argoControllerRunning } from './argo-controller.ts';
export type { ArgoControllerLease, ArgoControllerRunning } from './argo-controller.ts';
