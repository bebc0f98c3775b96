/**
 * canaryService / stableService: their selectors are pinned to a ReplicaSet's pod-template hash.
 * Service.spec.selector is an atomic map, so the apply carries the whole selector: the user's
 * labels plus our hash label.
 */
import {
  MANAGED_BY_ANNOTATION,
  managedMark,
  markedBy,
  POD_TEMPLATE_HASH_LABEL,
} from '../api/index.ts';
import type { Rollout, Service } from '../api/index.ts';

export interface ServiceSwitch {
  readonly body: Service;
  readonly from?: string;
  readonly to: string;
}

/** The apply that pins `service` to `hash`, or undefined when it is already pinned. */
export function pinService(
  service: Service,
  hash: string,
  rollout: Pick<Rollout, 'metadata'>,
): ServiceSwitch | undefined {
  const selector = service.spec?.selector ?? {};
  const from = selector[POD_TEMPLATE_HASH_LABEL];
  if (from === hash && markedBy(service, rollout)) return undefined;
  return {
    from,
    to: hash,
    body: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: service.metadata?.name,
        namespace: service.metadata?.namespace,
        annotations: managedMark(rollout),
      },
      spec: { selector: { ...selector, [POD_TEMPLATE_HASH_LABEL]: hash } },
    },
  };
}

/** The apply that gives back a Service the Rollout marked but no longer names: its selector
 *  without our hash, and without our mark (SSA drops the annotation we stop stating). Undefined
 *  when it is not ours or already released. */
export function releaseService(service: Service, rolloutName: string): ServiceSwitch | undefined {
  const selector = service.spec?.selector ?? {};
  const from = selector[POD_TEMPLATE_HASH_LABEL];
  const marked = service.metadata?.annotations?.[MANAGED_BY_ANNOTATION] === rolloutName;
  if (!marked) return undefined;
  const rest = Object.fromEntries(
    Object.entries(selector).filter(([key]) => key !== POD_TEMPLATE_HASH_LABEL),
  );
  return {
    from,
    to: '',
    body: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: service.metadata?.name, namespace: service.metadata?.namespace },
      spec: { selector: rest },
    },
  };
}

/** What a Service does for a Rollout: a canary's canary/stable, a blue-green's active/preview. */
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
  readonly spec?: {
    readonly strategy?: {
      readonly canary?: Partial<Record<'canaryService' | 'stableService', string>>;
      readonly blueGreen?: Partial<Record<'activeService' | 'previewService', string>>;
    };
  };
}): readonly ServiceRef[] {
  const strategy = rollout.spec?.strategy;
  const refs: ServiceRef[] = [];
  for (const [key, role, name] of [
    ['canary', 'canary', strategy?.canary?.canaryService],
    ['canary', 'stable', strategy?.canary?.stableService],
    // Argo's order: the preview before the active (the canary's before the stable's).
    ['blueGreen', 'preview', strategy?.blueGreen?.previewService],
    ['blueGreen', 'active', strategy?.blueGreen?.activeService],
  ] as const) {
    if (name !== undefined) {
      refs.push({ role, name, field: `spec.strategy.${key}.${role}Service` });
    }
  }
  return refs;
}
