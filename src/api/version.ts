/**
 * What this build is: its version, the commit it was built from and when. The bundlers stamp
 * them at build time through esbuild's `define` of STEPWISE_BUILD (image/stamp.ts computes it
 * for the controller image, `make build` and `make plugin-binary`). Run from source nothing is
 * stamped: the version is SOURCE_VERSION (package.json's; a unit test keeps them equal) and the
 * commit and date are `unknown`: nothing runs git at run time.
 */
export interface BuildInfo {
  readonly version: string;
  /** The commit, with `-dirty` when the tree had uncommitted changes. */
  readonly revision: string;
  /** RFC 3339, from SOURCE_DATE_EPOCH or the commit's time (never the wall clock). */
  readonly buildDate: string;
}

/** Replaced by an object literal in a stamped bundle; undeclared (typeof: undefined) otherwise. */
declare const STEPWISE_BUILD: BuildInfo | undefined;

export const SOURCE_VERSION = '0.1.0';
export const UNKNOWN_BUILD_FIELD = 'unknown';

export function buildInfo(): BuildInfo {
  if (typeof STEPWISE_BUILD === 'object' && STEPWISE_BUILD !== null) return STEPWISE_BUILD;
  return { version: SOURCE_VERSION, revision: UNKNOWN_BUILD_FIELD, buildDate: UNKNOWN_BUILD_FIELD };
}

/** Where the program runs, for the lines below (the caller reads `process`). */
export interface Runtime {
  readonly node: string;
  readonly platform: string;
}

/** `--version` of the controller and the plugin: the same lines, under each program's name. */
export function versionText(program: string, info: BuildInfo, runtime?: Runtime): string {
  const lines = [
    `${program} v${info.version}`,
    `  Commit: ${info.revision}`,
    `  Build date: ${info.buildDate}`,
  ];
  if (runtime) lines.push(`  Node: ${runtime.node}`, `  Platform: ${runtime.platform}`);
  return lines.join('\n');
}
