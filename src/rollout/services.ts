/**
 * canaryService / stableService: their selectors are pinned to a ReplicaSet's pod-template hash.
 * Service.spec.selector is an atomic map, so the apply carries the whole selector: the user's
 * labels plus our hash label.
 */
import { MANAGED_BY_ANNOTATION, POD_TEMPLATE_HASH_LABEL } from '../api/index.ts';
import type { Service } from '../api/index.ts';

export interface ServiceSwitch {
  readonly body: Service;
  readonly from?: string;
  readonly to: string;
}

/** The apply that pins `service` to `hash`, or undefined when it is already pinned. */
export function pinService(
  service: Service,
  hash: string,
  rolloutName: string,
): ServiceSwitch | undefined {
  const selector = service.spec?.selector ?? {};
  const from = selector[POD_TEMPLATE_HASH_LABEL];
  const marked = service.metadata?.annotations?.[MANAGED_BY_ANNOTATION] === rolloutName;
  if (from === hash && marked) return undefined;
  return {
    from,
    to: hash,
    body: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: service.metadata?.name,
        namespace: service.metadata?.namespace,
        annotations: { [MANAGED_BY_ANNOTATION]: rolloutName },
      },
      spec: { selector: { ...selector, [POD_TEMPLATE_HASH_LABEL]: hash } },
    },
  };
}

/** What a Service does for a Rollout. Canary uses canary/stable; blue-green will use
 *  active/preview. */
export type ServiceRole = 'canary' | 'stable' | 'active' | 'preview';

export interface ServiceRef {
  readonly role: ServiceRole;
  readonly name: string;
  /** The spec field that names it, for messages (`spec.strategy.canary.canaryService`). */
  readonly field: string;
}

/** The Services a Rollout names, by role: the one place that knows which spec field names which
 *  Service. The shell reads these from its cache; validation checks they exist. */
export function servicesOf(rollout: {
  readonly spec?: { readonly strategy?: { readonly canary?: CanaryServiceNames } };
}): readonly ServiceRef[] {
  const canary = rollout.spec?.strategy?.canary;
  const refs: ServiceRef[] = [];
  const field = (key: keyof CanaryServiceNames): string => `spec.strategy.canary.${key}`;
  if (canary?.canaryService !== undefined) {
    refs.push({ role: 'canary', name: canary.canaryService, field: field('canaryService') });
  }
  if (canary?.stableService !== undefined) {
    refs.push({ role: 'stable', name: canary.stableService, field: field('stableService') });
  }
  return refs;
}

interface CanaryServiceNames {
  readonly canaryService?: string;
  readonly stableService?: string;
}
