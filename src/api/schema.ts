/**
 * Schema builders shared by the TypeScript types, runtime validation and the CRD's
 * openAPIV3Schema. They emit only what Kubernetes accepts in a structural schema
 * (`enum` instead of `const`, `x-kubernetes-*` markers); crd.ts removes what is
 * runtime-only (`additionalProperties: false`).
 */
import Type, { type TSchema, type TUnsafe } from 'typebox';

/** A count: an int32 from 0. */
export const NonNegInt = (description: string): ReturnType<typeof Type.Integer> =>
  Type.Integer({ minimum: 0, format: 'int32', description });

/** A string restricted to `values`, as `enum` (structural schemas forbid `const`). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Kubernetes' IntOrString: `3` or `"25%"`. */
export function IntOrString(options: Record<string, unknown> = {}): TUnsafe<number | string> {
  return Type.Unsafe<number | string>({
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    ...options,
  });
}

/** An object whose fields Kubernetes keeps as they are (e.g. a pod template). */
export function Opaque<T>(options: Record<string, unknown> = {}): TUnsafe<T> {
  return Type.Unsafe<T>({
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    ...options,
  });
}

/** A strict object: unknown fields are errors at runtime (and pruned/rejected by the API server). */
export function Strict<P extends Record<string, TSchema>>(
  properties: P,
  options: Record<string, unknown> = {},
): ReturnType<typeof Type.Object<P>> {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/** `map[string]string`, as `additionalProperties` (structural schemas forbid patternProperties). */
export const StringMap = Type.Unsafe<Record<string, string>>({
  type: 'object',
  additionalProperties: { type: 'string' },
});

export const Time = Type.String({ format: 'date-time' });

/**
 * `schema` with the description of the field that holds it: a shared schema (a name, a label
 * map, an analysis) means something different in each place, and `kubectl explain` shows the
 * field's. The copy keeps TypeBox's hidden markers (its non-enumerable `~kind`).
 */
export function Described<T extends TSchema>(schema: T, description: string): T {
  const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(schema)) as T;
  return Object.assign(copy, { description });
}
