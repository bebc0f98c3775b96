/**
 * deploy/argocd/argocd-cm.yaml is generated from the Lua sources in deploy/argocd/ (the .lua
 * files are what is edited and tested): `node test/lua/argocd-cm.ts --write` rewrites it, and
 * test/unit/argocd/argocd-cm.test.ts fails when it no longer embeds exactly the files' text.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ARGOCD_DIR = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'deploy',
  'argocd',
);
export const ARGOCD_CM = join(ARGOCD_DIR, 'argocd-cm.yaml');
/** Argo CD's key for a resource: `<group>_<Kind>`. */
export const RESOURCE_KEY = 'stepwise.dev_Rollout';
export const ACTIONS = ['promote', 'promote-full', 'abort', 'retry'] as const;
export type ActionName = (typeof ACTIONS)[number];

export interface LuaSources {
  readonly health: string;
  readonly discovery: string;
  readonly actions: Readonly<Record<ActionName, string>>;
}

export function readLuaSources(dir = ARGOCD_DIR): LuaSources {
  const read = (...path: string[]): string => readFileSync(join(dir, ...path), 'utf8');
  return {
    health: read('health.lua'),
    discovery: read('actions', 'discovery.lua'),
    actions: Object.fromEntries(
      ACTIONS.map((a) => [a, read('actions', a, 'action.lua')]),
    ) as Record<ActionName, string>,
  };
}

/** `text` as the body of a YAML literal block scalar (`|`) indented by `indent` spaces. */
function block(text: string, indent: number): string {
  if (!text.endsWith('\n') || text.endsWith('\n\n')) {
    throw new Error('a Lua source must end with exactly one newline to embed as a YAML block');
  }
  const pad = ' '.repeat(indent);
  return text
    .slice(0, -1)
    .split('\n')
    .map((line) => (line === '' ? '' : `${pad}${line}`))
    .join('\n');
}

export function renderArgocdCm(src: LuaSources = readLuaSources()): string {
  const definitions = ACTIONS.map(
    (a) => `      - name: ${a}\n        action.lua: |\n${block(src.actions[a], 10)}`,
  ).join('\n');
  return `# Argo CD settings for Stepwise Rollouts: merge this \`data\` into the argocd-cm ConfigMap of
# your Argo CD installation (kubectl -n argocd patch configmap argocd-cm --patch-file ...).
# Generated from deploy/argocd/health.lua and deploy/argocd/actions/ by
# \`node test/lua/argocd-cm.ts --write\`: edit the .lua files, not this one.
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: argocd
  labels:
    app.kubernetes.io/name: argocd-cm
    app.kubernetes.io/part-of: argocd
data:
  # Health of a Rollout from its status (phase, conditions, observedGeneration): Healthy,
  # Progressing, Suspended (a pause step, an approval, an inconclusive analysis: someone or a
  # timer has to act) or Degraded (aborted, InvalidSpec, progress deadline exceeded).
  resource.customizations.health.${RESOURCE_KEY}: |
${block(src.health, 4)}
  # Actions in the Argo CD UI and CLI (argocd app actions run APP promote --kind Rollout
  # --group stepwise.dev --resource-name NAME). Each changes status only, which Argo CD sends to
  # the /status subresource: spec stays Git's. RBAC: action/stepwise.dev/Rollout/<name>.
  resource.customizations.actions.${RESOURCE_KEY}: |
    discovery.lua: |
${block(src.discovery, 6)}
    definitions:
${definitions}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = renderArgocdCm();
  if (process.argv.includes('--write')) writeFileSync(ARGOCD_CM, text);
  else process.stdout.write(text);
}
