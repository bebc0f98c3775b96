/**
 * Lists of any resource the plugin watches, in one namespace or all of them (the dashboard's
 * shared watches start from these), as the plain JSON a watch delivers.
 */
import { collectionPath, RESOURCES } from './api-paths.ts';
import type { WatchQuery, WatchResource } from './client.ts';
import { objectList, type ObjectList, type Send } from './sender.ts';

export interface ListCalls {
  /** Any watchable resource as plain JSON; namespace undefined: all namespaces. */
  listObjects(
    resource: WatchResource,
    namespace: string | undefined,
    query: WatchQuery,
  ): Promise<ObjectList<unknown>>;
}

export function listCalls(send: Send): ListCalls {
  return {
    listObjects: async (resource, namespace, query) =>
      objectList<unknown>(
        await send(
          { verb: 'list', resource, namespace },
          {
            method: 'GET',
            path: collectionPath(RESOURCES[resource], namespace),
            query: { ...query },
          },
        ),
      ),
  };
}
