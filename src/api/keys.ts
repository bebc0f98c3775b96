/**
 * Every name Stepwise writes into a cluster: API group, field manager, label and annotation
 * keys. One module, so an "Argo compatibility" profile (serving argoproj.io and its keys) is a
 * configuration change here, not a rewrite.
 */
export const GROUP = 'stepwise.dev';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const ROLLOUT_KIND = 'Rollout';
export const ROLLOUT_PLURAL = 'rollouts';
export const ROLLOUT_SHORT_NAMES = ['swro'] as const;

/** Server-side apply field manager for everything the controller owns. */
export const FIELD_MANAGER = 'stepwise-controller';
/** Field manager of the kubectl plugin's requests (promote, abort, retry) on `status`. */
export const PLUGIN_FIELD_MANAGER = 'kubectl-stepwise';
/** Name of the reporting controller on Events and holder prefix on the Lease. */
export const CONTROLLER_NAME = 'stepwise-controller';
export const LEASE_NAME = 'stepwise-controller-leader';

/** Argo's key, kept so Services and dashboards written for Argo Rollouts keep working. */
export const POD_TEMPLATE_HASH_LABEL = 'rollouts-pod-template-hash';

const prefix = `${GROUP}/`;
/** On objects of the user's that we modify (Services): which Rollout manages them. */
export const MANAGED_BY_ANNOTATION = `${prefix}managed-by`;
/** On ReplicaSets: the Rollout revision number of their template. */
export const REVISION_ANNOTATION = `${prefix}revision`;
/** On ReplicaSets: RFC 3339 time after which a scaled-up old ReplicaSet is scaled down. */
export const SCALE_DOWN_DEADLINE_ANNOTATION = `${prefix}scale-down-deadline`;
/** On a ReplicaSet: the role metadata keys (canary/stable, active/preview) we last put on its
 *  pods, so a key removed from the spec is taken off them too. */
export const ROLE_KEYS_ANNOTATION = `${prefix}role-metadata-keys`;
/** On ReplicaSets: the `spec.restartAt` whose restart has completed for that ReplicaSet. */
export const RESTARTED_AFTER_ANNOTATION = `${prefix}restarted-after`;
/** On a user's traffic object (HTTPRoute): the managed header/mirror routes we last applied
 *  there (canonical JSON), so reading them back is exact. */
export const MANAGED_ROUTES_ANNOTATION = `${prefix}managed-routes`;
/** On the user's objects we mark (Services, routes), beside the managed-by annotation: the
 *  controller instance of the Rollout that marked them (its INSTANCE_ID_LABEL), absent for a
 *  Rollout without one. A start-up sweep releases only what its own instance marked. */
export const MANAGED_BY_INSTANCE_ANNOTATION = `${prefix}managed-by-instance`;
/** On a user's traffic object we modify: the routing of the Rollout that manages it (its
 *  canary and stable Service and trafficRouting, canonical JSON), so the object is handed back
 *  the same way when that Rollout is gone, even when it went while the controller was down. */
export const MANAGED_ROUTING_ANNOTATION = `${prefix}managed-routing`;
/** Our finalizer on a Rollout whose workloadRef names a Deployment: its deletion waits until
 *  the Deployment has its pre-migration replicas back. */
export const RESTORE_WORKLOAD_FINALIZER = `${prefix}restore-workload`;
/** On a Deployment a Rollout's `workloadRef` scaled down: its `spec.replicas` before the first
 *  scale-down, so whoever hands it back (the Rollout's deletion) restores that count. */
export const PRE_MIGRATION_REPLICAS_ANNOTATION = `${prefix}pre-migration-replicas`;
/** On such a Deployment: the Rollout has been Healthy and the Deployment drained, so it is held
 *  at 0 from then on (a GitOps re-apply of its replicas is scaled back). */
export const MIGRATED_ANNOTATION = `${prefix}migrated`;
/** On Rollouts (and the AnalysisRuns made for them): which controller instance handles them
 *  (`--instance-id`, as Argo's `argo-rollouts.argoproj.io/controller-instance-id`). A controller
 *  without an instance id handles only objects without the label. */
export const INSTANCE_ID_LABEL = `${prefix}controller-instance-id`;
/** On pods of a canary/stable ReplicaSet, the role given by canaryMetadata/stableMetadata. */
export const ROLE_LABEL = `${prefix}role`;

/** GitOps tracking keys that objects we create must never copy (GitOps rule 2). */
export const GITOPS_TRACKING_KEYS: readonly string[] = [
  'app.kubernetes.io/instance',
  'argocd.argoproj.io/tracking-id',
  'argocd.argoproj.io/instance',
  'kustomize.toolkit.fluxcd.io/name',
  'kustomize.toolkit.fluxcd.io/namespace',
  'helm.toolkit.fluxcd.io/name',
  'helm.toolkit.fluxcd.io/namespace',
  'kubectl.kubernetes.io/last-applied-configuration',
];

/** Short names carry the `sw` prefix (like `swro`) so they never clash with an installed Argo. */
export const ANALYSIS_TEMPLATE_KIND = 'AnalysisTemplate';
export const ANALYSIS_TEMPLATE_PLURAL = 'analysistemplates';
export const ANALYSIS_TEMPLATE_SHORT_NAMES = ['swat'] as const;
export const CLUSTER_ANALYSIS_TEMPLATE_KIND = 'ClusterAnalysisTemplate';
export const CLUSTER_ANALYSIS_TEMPLATE_PLURAL = 'clusteranalysistemplates';
export const CLUSTER_ANALYSIS_TEMPLATE_SHORT_NAMES = ['swcat'] as const;
export const ANALYSIS_RUN_KIND = 'AnalysisRun';
export const ANALYSIS_RUN_PLURAL = 'analysisruns';
export const ANALYSIS_RUN_SHORT_NAMES = ['swar'] as const;
export const ROLLOUT_APPROVAL_KIND = 'RolloutApproval';
export const ROLLOUT_APPROVAL_PLURAL = 'rolloutapprovals';
export const ROLLOUT_APPROVAL_SHORT_NAMES = ['swra'] as const;
/** Field manager of the approval endpoints (links, Slack) when they record a decision. */
export const APPROVALS_FIELD_MANAGER = 'stepwise-approvals';
/** Argo's labels on the AnalysisRuns a Rollout creates (dashboards select on them). */
export const ANALYSIS_TYPE_LABEL = 'rollout-type';
export const ANALYSIS_STEP_INDEX_LABEL = 'step-index';

/** On a Rollout: who hears about it. Values are comma-separated lists (see src/notify/config.ts). */
const notificationsPrefix = `notifications.${GROUP}/`;
/** Slack channel ids or #names, posted to with the bot token. */
export const NOTIFY_SLACK_CHANNEL_ANNOTATION = `${notificationsPrefix}slack-channel`;
/** Names of Slack incoming webhooks configured in the notification Secret. */
export const NOTIFY_SLACK_WEBHOOK_ANNOTATION = `${notificationsPrefix}slack-webhook`;
/** Names of generic webhooks configured in the notification Secret. */
export const NOTIFY_WEBHOOK_ANNOTATION = `${notificationsPrefix}webhook`;
/** Which notification kinds to send (default: all). */
export const NOTIFY_ON_ANNOTATION = `${notificationsPrefix}on`;

/** The node label blue-green's anti-affinity spreads by. */
export const HOSTNAME_TOPOLOGY_KEY = 'kubernetes.io/hostname';

/**
 * Argo Rollouts' own names, read when a Stepwise Rollout adopts what Argo's controller left
 * running (src/rollout/adoption/) and by `kubectl stepwise migrate`, and written only by a
 * controller serving argoproj.io in place.
 */
export const ARGO_GROUP = 'argoproj.io';
export const ARGO_API_VERSION = `${ARGO_GROUP}/v1alpha1`;
/** On Argo's ReplicaSets: the Rollout revision of their template (ours continues from it). */
export const ARGO_REVISION_ANNOTATION = 'rollout.argoproj.io/revision';
/** On Argo's old ReplicaSets: when Argo would have scaled them down (RFC 3339). */
export const ARGO_SCALE_DOWN_DEADLINE_ANNOTATION = 'scale-down-deadline';
/** On Services Argo pinned: the Rollout managing them. Written in its place by a controller that
 *  serves argoproj.io in place (src/kube/argo-wire/), as are the keys below. */
export const ARGO_MANAGED_BY_ANNOTATION = 'argo-rollouts.argoproj.io/managed-by-rollouts';
/** Argo's `--instance-id` label on Rollouts and AnalysisRuns. */
export const ARGO_INSTANCE_ID_LABEL = 'argo-rollouts.argoproj.io/controller-instance-id';
/** The field manager of Argo Rollouts' controller (its writes are Updates under this name). */
export const ARGO_CONTROLLER_MANAGER = 'rollouts-controller';
/** Argo's controller's leader-election Lease, in the namespace of its default install: held
 *  while Argo runs (it releases it on a clean stop). */
export const ARGO_CONTROLLER_LEASE = 'argo-rollouts/argo-rollouts-controller-lock';
