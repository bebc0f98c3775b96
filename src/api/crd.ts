/**
 * Builds CustomResourceDefinitions from the schemas in this folder. The output must be a
 * structural schema: every node typed (or marked int-or-string / preserve-unknown-fields), no
 * `const`, no `$ref`, no `additionalProperties: false` (that one is for runtime validation; the
 * API server prunes unknown fields and rejects them under kubectl's default strict validation).
 */
import type { TSchema } from 'typebox';
import {
  ANALYSIS_RUN_KIND,
  ANALYSIS_RUN_PLURAL,
  ANALYSIS_RUN_SHORT_NAMES,
  ANALYSIS_TEMPLATE_KIND,
  ANALYSIS_TEMPLATE_PLURAL,
  ANALYSIS_TEMPLATE_SHORT_NAMES,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
  CLUSTER_ANALYSIS_TEMPLATE_PLURAL,
  CLUSTER_ANALYSIS_TEMPLATE_SHORT_NAMES,
  GROUP,
  ROLLOUT_APPROVAL_KIND,
  ROLLOUT_APPROVAL_PLURAL,
  ROLLOUT_APPROVAL_SHORT_NAMES,
  ROLLOUT_KIND,
  ROLLOUT_PLURAL,
  ROLLOUT_SHORT_NAMES,
  VERSION,
} from './keys.ts';
import { RolloutSpecSchema, RolloutStatusSchema } from './rollout.ts';
import {
  AnalysisRunSpecSchema,
  AnalysisRunStatusSchema,
  AnalysisTemplateSpecSchema,
} from './analysis.ts';
import { RolloutApprovalSpecSchema, RolloutApprovalStatusSchema } from './approval.ts';

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
      // The API server stores no empty map (omitempty): one here would show as a diff forever.
      if (Object.keys(value).length === 0) continue;
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

interface CrdDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly shortNames: readonly string[];
  readonly scope: 'Namespaced' | 'Cluster';
  readonly categories: readonly string[];
  readonly description: string;
  readonly spec: TSchema;
  readonly status?: TSchema;
  readonly subresources?: JsonObject;
  readonly columns: readonly JsonObject[];
}

/** One served and stored version, with a status subresource whenever the kind has a status. */
function customResourceDefinition(d: CrdDefinition): JsonObject {
  const properties: JsonObject = {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: toStructural(d.spec, '#/spec'),
  };
  if (d.status) properties.status = toStructural(d.status, '#/status');
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${d.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: d.scope,
      names: {
        kind: d.kind,
        listKind: `${d.kind}List`,
        plural: d.plural,
        singular: d.kind.toLowerCase(),
        shortNames: [...d.shortNames],
        categories: [...d.categories],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          ...(d.subresources ? { subresources: d.subresources } : {}),
          additionalPrinterColumns: [...d.columns],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: d.description,
              required: ['spec'],
              properties,
            },
          },
        },
      ],
    },
  };
}

export function rolloutCrd(): JsonObject {
  return customResourceDefinition({
    kind: ROLLOUT_KIND,
    plural: ROLLOUT_PLURAL,
    shortNames: ROLLOUT_SHORT_NAMES,
    scope: 'Namespaced',
    categories: ['all', 'stepwise'],
    description: 'A Rollout replaces a Deployment and moves to a new version step by step.',
    spec: RolloutSpecSchema,
    status: RolloutStatusSchema,
    subresources: {
      status: {},
      scale: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.HPAReplicas',
        labelSelectorPath: '.status.selector',
      },
    },
    columns: [
      column('Desired', 'integer', '.spec.replicas', 'Desired pods'),
      column('Current', 'integer', '.status.replicas', 'Total pods'),
      column('Up-to-date', 'integer', '.status.updatedReplicas', 'Pods of the new revision'),
      column('Available', 'integer', '.status.availableReplicas', 'Available pods'),
      column('Phase', 'string', '.status.phase', 'Healthy, Progressing, Paused or Degraded'),
      column('Step', 'integer', '.status.currentStepIndex', 'Current canary step index'),
      column('Weight', 'integer', '.status.canary.weights.canary.weight', 'Canary weight'),
      AGE,
    ],
  });
}

export function analysisTemplateCrd(): JsonObject {
  return customResourceDefinition({
    kind: ANALYSIS_TEMPLATE_KIND,
    plural: ANALYSIS_TEMPLATE_PLURAL,
    shortNames: ANALYSIS_TEMPLATE_SHORT_NAMES,
    scope: 'Namespaced',
    categories: ['stepwise'],
    description: 'Metrics, their provider and conditions, from which AnalysisRuns are made.',
    spec: AnalysisTemplateSpecSchema,
    columns: [AGE],
  });
}

export function clusterAnalysisTemplateCrd(): JsonObject {
  return customResourceDefinition({
    kind: CLUSTER_ANALYSIS_TEMPLATE_KIND,
    plural: CLUSTER_ANALYSIS_TEMPLATE_PLURAL,
    shortNames: CLUSTER_ANALYSIS_TEMPLATE_SHORT_NAMES,
    scope: 'Cluster',
    categories: ['stepwise'],
    description: 'An AnalysisTemplate usable from every namespace.',
    spec: AnalysisTemplateSpecSchema,
    columns: [AGE],
  });
}

export function analysisRunCrd(): JsonObject {
  return customResourceDefinition({
    kind: ANALYSIS_RUN_KIND,
    plural: ANALYSIS_RUN_PLURAL,
    shortNames: ANALYSIS_RUN_SHORT_NAMES,
    scope: 'Namespaced',
    categories: ['stepwise'],
    description: 'One analysis: metrics measured on their interval until the run has a verdict.',
    spec: AnalysisRunSpecSchema,
    status: AnalysisRunStatusSchema,
    subresources: { status: {} },
    columns: [
      column(
        'Phase',
        'string',
        '.status.phase',
        'Pending, Running, Successful, Failed, Error or Inconclusive',
      ),
      AGE,
    ],
  });
}

export function rolloutApprovalCrd(): JsonObject {
  return customResourceDefinition({
    kind: ROLLOUT_APPROVAL_KIND,
    plural: ROLLOUT_APPROVAL_PLURAL,
    shortNames: ROLLOUT_APPROVAL_SHORT_NAMES,
    scope: 'Namespaced',
    categories: ['stepwise'],
    description:
      'A person approving or rejecting an approval step of a Rollout; the controller records it in the Rollout status.',
    spec: RolloutApprovalSpecSchema,
    status: RolloutApprovalStatusSchema,
    subresources: { status: {} },
    columns: [
      column('Rollout', 'string', '.spec.rolloutName', 'The Rollout'),
      column('Step', 'integer', '.spec.step', 'Canary step index'),
      column('Revision', 'string', '.spec.revision', 'Pod-template hash'),
      column('Decision', 'string', '.spec.decision', 'Approve or Reject'),
      column('Approver', 'string', '.spec.approver', 'Who decided'),
      column('Phase', 'string', '.status.phase', 'Recorded or Refused'),
      AGE,
    ],
  });
}

function column(name: string, type: string, jsonPath: string, description: string): JsonObject {
  return { name, type, jsonPath, description };
}

const AGE = column('Age', 'date', '.metadata.creationTimestamp', 'Age');

/** Every CRD Stepwise installs, by the file name it is committed under in deploy/crds/. */
export function allCrds(): ReadonlyMap<string, JsonObject> {
  return new Map(
    [
      rolloutCrd(),
      analysisTemplateCrd(),
      clusterAnalysisTemplateCrd(),
      analysisRunCrd(),
      rolloutApprovalCrd(),
    ].map((crd) => [`${(crd.metadata as JsonObject).name as string}.yaml`, crd]),
  );
}
