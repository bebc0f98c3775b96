/** Serving Argo Rollouts' own objects in place (--api-group=argoproj.io). */
export { ArgoWireKubeApi, withArgoTypes } from './kube-api.ts';
export { ARGO_SERVED_KINDS } from './translate.ts';
