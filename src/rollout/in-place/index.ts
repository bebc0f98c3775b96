/** Serving Argo Rollouts' own objects: taking over the status Argo's controller left, and
 *  standing aside while that controller still runs (../argo-controller.ts). */
export { planInPlaceTakeover } from './plan.ts';
