/**
 * PURE: the converted manifests as Git will hold them: YAML documents for stdout, or one file a
 * manifest for `-o DIR`; with --allow-partial, each document carries the problems found in it as
 * comments above it (the user edits them before applying).
 */
import { dump } from 'js-yaml';
import type { Converted } from './convert.ts';

export interface ManifestFile {
  /** `rollout-web.yaml` */
  readonly name: string;
  readonly text: string;
}

export function manifestFiles(
  converted: readonly Converted[],
  problems: readonly string[] = [],
): ManifestFile[] {
  return converted.map((c) => {
    const mine = problems.filter((p) => p.includes(`: ${c.kind}/${c.name}: `));
    const comments = mine.map((p) => `# cannot convert: ${p}\n`).join('');
    return {
      name: `${c.kind.toLowerCase()}-${c.name}.yaml`,
      text: comments + dump(c.manifest, { lineWidth: -1, noRefs: true }),
    };
  });
}

/** All of them as one stream of YAML documents. */
export function manifestStream(files: readonly ManifestFile[]): string {
  return files.map((f) => f.text).join('---\n');
}
