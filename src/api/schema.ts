/**
 * Schema builders shared by the TypeScript types, runtime validation and the CRD's
 * openAPIV3Schema. They emit only what Kubernetes accepts in a structural schema
 * (`enum` instead of `const`, `x-kubernetes-*` markers); crd.ts removes what is
 * runtime-only (`additionalProperties: false`).
 */
import Type, { type TSchema, type TUnsafe } from 'typebox';

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
