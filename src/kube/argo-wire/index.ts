export { ArgoWireKubeApi, withArgoTypes } from './kube-api.ts';
export {
  ARGO_INSTANCE_ID_LABEL,
  ARGO_MANAGED_BY_ANNOTATION,
  ARGO_SERVED_KINDS,
  servedType,
  translateObject,
  translateSelector,
} from './translate.ts';
