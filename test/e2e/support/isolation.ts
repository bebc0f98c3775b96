/**
 * Keeps the end-to-end files that `make e2e` runs side by side out of each other's way.
 *
 * All files share one control plane, and a controller started without `--instance-id` or
 * `--namespace` handles every unlabelled Rollout in the cluster, so two such files at once would
 * fight over each other's Rollouts. With STEPWISE_E2E_ISOLATE=1 (set by `make e2e`), each test
 * file (one process) gets an instance id of its own: the controllers it starts run with
 * `--instance-id=<it>` and the Rollouts and AnalysisRuns it creates through the support code
 * carry the label, so no test has to remember either. A controller confined to one namespace
 * (`--namespace`) is isolated already: it keeps running without an instance id, and what is
 * created in its namespace stays unlabelled, as it is today.
 *
 * Without the variable (a file run by hand, the demo, the benchmarks) nothing changes.
 */
import { randomBytes } from 'node:crypto';
import { basename } from 'node:path';
import { INSTANCE_ID_LABEL } from '../../../src/api/index.ts';

export const ISOLATE_ENV = 'STEPWISE_E2E_ISOLATE';

/** This file's instance id, or undefined when the files are not run side by side. */
export const FILE_INSTANCE_ID: string | undefined =
  process.env[ISOLATE_ENV] === '1' ? instanceIdFor(process.argv[1] ?? '') : undefined;

/** Namespaces that a controller of this process watches alone (`--namespace`, no instance id). */
const confinedNamespaces = new Set<string>();

/** `e2e-<file>-<random>`: a label value (at most 63 characters) that says whose it is. */
function instanceIdFor(script: string): string {
  const file = basename(script)
    .replace(/\.test\.[cm]?[jt]s$/, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 40)
    .replace(/^-+|-+$/g, '');
  return `e2e-${file || 'file'}-${randomBytes(3).toString('hex')}`;
}

/** The value of `--name=value` among `flags`, if given. */
function flagValue(flags: readonly string[], name: string): string | undefined {
  const prefix = `--${name}=`;
  return flags.find((f) => f.startsWith(prefix))?.slice(prefix.length);
}

/**
 * The instance id to add to a controller's flags: none when they name one or confine it to a
 * namespace (which is then recorded, so that what is created there is left unlabelled).
 */
export function instanceIdToAdd(
  flags: readonly string[],
  requested: string | undefined,
): string | undefined {
  if (flagValue(flags, 'instance-id') !== undefined) return undefined;
  if (requested !== undefined) return requested;
  const namespace = flagValue(flags, 'namespace');
  if (namespace !== undefined) {
    confinedNamespaces.add(namespace);
    return undefined;
  }
  return FILE_INSTANCE_ID;
}

/** The instance id among a controller's flags (given or added), if any. */
export const instanceIdOf = (flags: readonly string[]): string | undefined =>
  flagValue(flags, 'instance-id');

interface Labelled {
  metadata: { labels?: Record<string, string> };
}

/**
 * `body` with this file's instance label, for a Rollout or AnalysisRun about to be created in
 * `namespace`; unchanged when isolation is off, when it names an instance already, or when a
 * namespace-confined controller of this file watches `namespace`.
 */
export function withInstanceLabel<T extends Labelled>(namespace: string, body: T): T {
  if (FILE_INSTANCE_ID === undefined || confinedNamespaces.has(namespace)) return body;
  if (body.metadata.labels?.[INSTANCE_ID_LABEL] !== undefined) return body;
  return {
    ...body,
    metadata: {
      ...body.metadata,
      labels: { ...body.metadata.labels, [INSTANCE_ID_LABEL]: FILE_INSTANCE_ID },
    },
  };
}
