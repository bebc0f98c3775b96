/**
 * What a takeover from Argo Rollouts must keep, read from the cluster for comparison before and
 * after: the live pods, the Services' selectors exactly as stored, the ReplicaSets' controllers.
 */
import { getService, http, replicaSets } from './rollouts.ts';

/** The UIDs of the live pods of app `app` in `ns`, sorted. */
export async function podUids(ns: string, app: string): Promise<string[]> {
  const list = await http.json<{
    items: { metadata: { uid: string; deletionTimestamp?: string } }[];
  }>('GET', `/api/v1/namespaces/${ns}/pods?labelSelector=app%3D${app}`);
  return list.items
    .filter((p) => p.metadata.deletionTimestamp === undefined)
    .map((p) => p.metadata.uid)
    .sort();
}

/** The Services' selectors exactly as the API server returns them. */
export async function selectors(ns: string, ...names: string[]): Promise<string> {
  const all = await Promise.all(names.map(async (n) => (await getService(ns, n)).spec?.selector));
  return JSON.stringify(all);
}

/** The controlling owner of each of the app's ReplicaSets: `apiVersion kind name uid`. */
export async function owners(ns: string, app: string): Promise<string[]> {
  return (await replicaSets(ns, app)).map((rs) => {
    const o = rs.metadata?.ownerReferences?.find((r) => r.controller === true);
    return `${o?.apiVersion} ${o?.kind} ${o?.name} ${o?.uid}`;
  });
}
