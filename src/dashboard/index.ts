/**
 * The dashboard's surface: the server (serveDashboard, with the page's assets), the hub its
 * pages read, and the JSON it speaks. Whoever serves it hands it watches and actions: the
 * plugin its own (src/cli/dashboard/), with the user's credentials.
 */
export { serveDashboard } from './server/app.ts';
export type { Assets, Dashboard, DashboardActions, DashboardOptions } from './server/app.ts';
export { dashboardAssets } from './server/assets.ts';
export { Hub } from './server/hub.ts';
export type { LiveSet, WatchedKind, WatchedSets } from './server/hub.ts';
export type { EventLike } from './model/views.ts';
export type * from './model/wire.ts';
