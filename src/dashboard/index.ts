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
// In the cluster: sign-in (a bearer token or a trusted proxy), a view per person, actions asked
// of Kubernetes for them first. Whoever serves it hands it the API calls (src/cli/dashboard/in-cluster/).
export { serveClusterDashboard } from './server/cluster-app.ts';
export type {
  ClusterActions,
  ClusterDashboard,
  ClusterDashboardOptions,
} from './server/cluster-app.ts';
export type { AccessDecision, ClusterIdentity, ResourceAttributes } from './server/access.ts';
export type { ClusterSession, Credential, SessionUser } from './server/cluster-sessions.ts';
export {
  CidrError,
  DEFAULT_GROUP_HEADER,
  DEFAULT_USER_HEADER,
  parseCidr,
} from './server/proxy-trust.ts';
export type { Cidr, ProxyTrust } from './server/proxy-trust.ts';
