/** Serving Argo Rollouts' own objects: taking over the status Argo's controller left. */
export { planInPlaceTakeover } from './plan.ts';
