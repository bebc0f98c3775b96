/**
 * Builds CustomResourceDefinitions from the schemas in this folder. The output must be a
 * structural schema: every node typed (or marked int-or-string / preserve-unknown-fields), no
 * `const`, no `$ref`, no `additionalProperties: false` (that one is for runtime validation; the
 * API server prunes unknown fields and rejects them under kubectl's default strict validation).
 */
import type { TSchema } from 'typebox';
import { GROUP, ROLLOUT_KIND, ROLLOUT_PLURAL, ROLLOUT_SHORT_NAMES, VERSION } from './keys.ts';
import { RolloutSpecSchema, RolloutStatusSchema } from './rollout.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const FORBIDDEN = ['const', '$ref', '$defs', '$schema', '$id', 'definitions', 'patternProperties'];

/** Converts a TypeBox schema into a structural OpenAPI v3 schema, or throws on what it cannot. */
export function toStructural(schema: TSchema, path = '#'): JsonObject {
  const plain = JSON.parse(JSON.stringify(schema)) as JsonObject;
  return clean(plain, path);
}

function clean(node: JsonObject, path: string): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (FORBIDDEN.includes(key))
      throw new Error(`${path}: '${key}' is not allowed in a CRD schema`);
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          clean(asObject(v, `${path}/${k}`), `${path}/${k}`),
        ]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && isObject(value)) {
      out[key] = clean(value, `${path}/${key}`);
    } else {
      out[key] = value;
    }
  }
  const typed =
    typeof out.type === 'string' ||
    out['x-kubernetes-int-or-string'] === true ||
    out['x-kubernetes-preserve-unknown-fields'] === true;
  if (!typed) throw new Error(`${path}: every node of a structural schema needs a type`);
  if (Array.isArray(out.anyOf) && out['x-kubernetes-int-or-string'] !== true) {
    throw new Error(`${path}: anyOf is only allowed for int-or-string`);
  }
  return out;
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function asObject(v: Json, path: string): JsonObject {
  if (!isObject(v)) throw new Error(`${path}: expected a schema object`);
  return v;
}

export function rolloutCrd(): JsonObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${ROLLOUT_PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: ROLLOUT_KIND,
        listKind: `${ROLLOUT_KIND}List`,
        plural: ROLLOUT_PLURAL,
        singular: ROLLOUT_KIND.toLowerCase(),
        shortNames: [...ROLLOUT_SHORT_NAMES],
        categories: ['all', 'stepwise'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.HPAReplicas',
              labelSelectorPath: '.status.selector',
            },
          },
          additionalPrinterColumns: [
            column('Desired', 'integer', '.spec.replicas', 'Desired pods'),
            column('Current', 'integer', '.status.replicas', 'Total pods'),
            column('Up-to-date', 'integer', '.status.updatedReplicas', 'Pods of the new revision'),
            column('Available', 'integer', '.status.availableReplicas', 'Available pods'),
            column('Phase', 'string', '.status.phase', 'Healthy, Progressing, Paused or Degraded'),
            column('Step', 'integer', '.status.currentStepIndex', 'Current canary step index'),
            column('Weight', 'integer', '.status.canary.weights.canary.weight', 'Canary weight'),
            column('Age', 'date', '.metadata.creationTimestamp', 'Age'),
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description:
                'A Rollout replaces a Deployment and moves to a new version step by step.',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: toStructural(RolloutSpecSchema, '#/spec'),
                status: toStructural(RolloutStatusSchema, '#/status'),
              },
            },
          },
        },
      ],
    },
  };
}

function column(name: string, type: string, jsonPath: string, description: string): JsonObject {
  return { name, type, jsonPath, description };
}

/** Every CRD Stepwise installs, by the file name it is committed under in deploy/crds/. */
export function allCrds(): ReadonlyMap<string, JsonObject> {
  return new Map([[`${ROLLOUT_PLURAL}.${GROUP}.yaml`, rolloutCrd()]]);
}
