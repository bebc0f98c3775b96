/**
 * canaryMetadata / stableMetadata: labels and annotations that pods carry while they are the
 * canary or the stable, patched in place on running pods (Argo's "ephemeral metadata"). New
 * pods get them from the ReplicaSet's template; a pod changing role loses the old role's keys.
 * A merge patch (not an apply) because the keys a pod was born with belong to its creator.
 */
import type { Pod, PodMetadata } from '../api/index.ts';

export interface PodMetadataPatch {
  readonly labels: Readonly<Record<string, string | null>>;
  readonly annotations: Readonly<Record<string, string | null>>;
}

export function podMetadataPatch(
  pod: Pod,
  want: PodMetadata | undefined,
  drop: PodMetadata | undefined,
): PodMetadataPatch | undefined {
  const labels = diff(pod.metadata?.labels ?? {}, want?.labels ?? {}, drop?.labels ?? {});
  const annotations = diff(
    pod.metadata?.annotations ?? {},
    want?.annotations ?? {},
    drop?.annotations ?? {},
  );
  if (Object.keys(labels).length === 0 && Object.keys(annotations).length === 0) return undefined;
  return { labels, annotations };
}

function diff(
  have: Readonly<Record<string, string>>,
  want: Readonly<Record<string, string>>,
  drop: Readonly<Record<string, string>>,
): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(want)) if (have[k] !== v) patch[k] = v;
  for (const k of Object.keys(drop)) if (k in have && !(k in want)) patch[k] = null;
  return patch;
}
