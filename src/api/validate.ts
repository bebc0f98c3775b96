/**
 * Runtime validation of objects read from the cluster against the same schemas the CRD is
 * generated from. The API server has already pruned and type-checked them; this catches what
 * older CRD versions let through and gives InvalidSpec messages with field paths.
 */
import { Compile } from 'typebox/compile';
import { podTemplateProblems } from './pod-template.ts';
import { RolloutSpecSchema } from './rollout.ts';

/** Compiled on first use: a validator is generated code, and a controller (or plugin command)
 *  that never validates a Rollout need not hold it. */
export function lazily(compile: () => CompiledSchema): () => CompiledSchema {
  let compiled: CompiledSchema | undefined;
  return () => (compiled ??= compile());
}

const rolloutSpec = lazily(() => Compile(RolloutSpecSchema));

/** Problems with a Rollout's spec, one line each (`spec.strategy.canary.steps[1]: must …`). */
export function rolloutSpecProblems(spec: unknown): string[] {
  return schemaProblems(rolloutSpec(), spec, {
    kind: 'Rollout',
    exactlyOne: 'action',
    exactlyOneAt: {
      '/strategy': 'strategy: canary or blueGreen',
      '/antiAffinity':
        'of preferredDuringSchedulingIgnoredDuringExecution and requiredDuringSchedulingIgnoredDuringExecution',
    },
  });
}

/**
 * Problems with the pod template a Rollout's spec holds inline, one line each with the field's
 * path. Only the spec as written: a workloadRef's referent was checked by the API server (and a
 * newer server may know fields this check does not).
 */
export function rolloutTemplateProblems(spec: unknown): string[] {
  const template = isRecord(spec) ? spec.template : undefined;
  return isRecord(template) ? podTemplateProblems(template, 'spec.template') : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a compiled schema offers: a check and its errors. */
export interface CompiledSchema {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<SchemaError>;
}

/**
 * Problems with `spec` against a compiled schema, one line per field. `exactlyOne` names what an
 * object limited to one property holds (a step's "action", a metric's "provider").
 */
export function schemaProblems(
  schema: CompiledSchema,
  spec: unknown,
  words: {
    readonly kind: string;
    readonly exactlyOne: string;
    /** What objects at paths ending so hold, when not `exactlyOne`. */
    readonly exactlyOneAt?: Readonly<Record<string, string>>;
  },
): string[] {
  if (schema.Check(spec)) return [];
  const errors = [...schema.Errors(spec)];
  const problems = new Set<string>();
  for (const error of errors) {
    if (redundant(error, errors)) continue;
    const noun = Object.entries(words.exactlyOneAt ?? {}).find(([suffix]) =>
      error.instancePath.endsWith(suffix),
    )?.[1];
    problems.add(
      `${fieldPath('spec', error.instancePath)}: ${describe(error, noun ?? words.exactlyOne)}`,
    );
  }
  return problems.size > 0 ? [...problems] : [`spec: does not match the ${words.kind} schema`];
}

export interface SchemaError {
  readonly keyword: string;
  readonly schemaPath: string;
  readonly instancePath: string;
  readonly message: string;
  readonly params: unknown;
}

/** Errors that repeat what a more useful error on the same field already says. */
function redundant(error: SchemaError, all: readonly SchemaError[]): boolean {
  if (error.keyword === 'boolean' || error.schemaPath.includes('/anyOf/')) return true;
  if (error.keyword !== 'additionalProperties') return false;
  // A map's value of the wrong type is reported on the value itself.
  const names = (error.params as { additionalProperties?: string[] }).additionalProperties ?? [];
  return names.every((name) =>
    all.some(
      (e) =>
        e.keyword !== 'boolean' &&
        e !== error &&
        e.instancePath.startsWith(`${error.instancePath}/${name}`),
    ),
  );
}

function describe(error: SchemaError, exactlyOne: string): string {
  if (error.keyword === 'anyOf') return 'must be an integer or a string such as "25%"';
  if (error.keyword === 'additionalProperties') {
    const names = (error.params as { additionalProperties?: string[] }).additionalProperties;
    return `unknown field${names && names.length > 1 ? 's' : ''} ${(names ?? []).join(', ')}`;
  }
  if (error.keyword === 'required') {
    const names = (error.params as { requiredProperties?: string[] }).requiredProperties;
    return `must have ${(names ?? []).join(', ')}`;
  }
  if (error.keyword === 'maxProperties' || error.keyword === 'minProperties') {
    return `must set exactly one ${exactlyOne}`;
  }
  return error.message;
}

/** `/strategy/canary/steps/1/setWeight` → `spec.strategy.canary.steps[1].setWeight` */
export function fieldPath(root: string, pointer: string): string {
  let out = root;
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replaceAll('~1', '/').replaceAll('~0', '~');
    out += /^\d+$/.test(key) ? `[${key}]` : `.${key}`;
  }
  return out;
}
