/**
 * The shape of the generated PodTemplateSpec field tree (pod-template-fields.ts), shared by its
 * generator and the check that reads it (pod-template.ts).
 */

/** Where the tree starts: the model of a Rollout's `spec.template`. */
export const POD_TEMPLATE_ROOT = 'V1PodTemplateSpec';

/**
 * client-node's names for values without fields of their own. `any` is an open object (e.g. a
 * RawExtension); Quantity is `string` there although Kubernetes also takes a number, so scalars
 * are not told apart.
 */
export const LEAF_TYPES = ['string', 'number', 'boolean', 'Date', 'IntOrString', 'any'] as const;

/**
 * Each model by client-node's class name: its JSON field names, each with a type reference: a
 * leaf type, a model name, `[]` + a reference (a list) or `{}` + a reference (a map by string).
 */
export type PodTemplateModels = Readonly<Record<string, Readonly<Record<string, string>>>>;
