/**
 * Runtime validation of AnalysisTemplate / ClusterAnalysisTemplate / AnalysisRun specs: the
 * schema (as the CRD checks it) plus the rules a structural schema cannot say: one source per
 * value, and no secret written into the spec. The metric rules of Argo's `ValidateMetric`
 * (limits, count and interval) live with the evaluation in src/analysis.
 */
import { Compile } from 'typebox/compile';
import { AnalysisRunSpecSchema, AnalysisTemplateSpecSchema } from './analysis.ts';
import type {
  AnalysisTemplateSpec,
  Argument,
  Authentication,
  WebMetricHeader,
} from './analysis.ts';
import { lazily, schemaProblems } from './validate.ts';

const templateSpec = lazily(() => Compile(AnalysisTemplateSpecSchema));
const runSpec = lazily(() => Compile(AnalysisRunSpecSchema));
const WORDS = { exactlyOne: 'provider' } as const;

/** Problems with an AnalysisTemplate's (or ClusterAnalysisTemplate's) spec, one line each. */
export function analysisTemplateSpecProblems(spec: unknown): string[] {
  const problems = schemaProblems(templateSpec(), spec, { ...WORDS, kind: 'AnalysisTemplate' });
  return problems.length > 0 ? problems : sourceProblems(spec as AnalysisTemplateSpec);
}

/** Problems with an AnalysisRun's spec, one line each. */
export function analysisRunSpecProblems(spec: unknown): string[] {
  const problems = schemaProblems(runSpec(), spec, { ...WORDS, kind: 'AnalysisRun' });
  return problems.length > 0 ? problems : sourceProblems(spec as AnalysisTemplateSpec);
}

/** `{{args.name}}` (spaces allowed inside the braces, as Argo's template resolver does). */
const ARG_REFERENCE = /^\{\{\s*args\.([A-Za-z0-9_.-]+)\s*\}\}$/;

function sourceProblems(spec: AnalysisTemplateSpec): string[] {
  const problems: string[] = [];
  const args = spec.args ?? [];
  args.forEach((arg, i) => problems.push(...argumentProblems(arg, `spec.args[${i}]`)));
  spec.metrics.forEach((metric, i) => {
    const at = `spec.metrics[${i}].provider`;
    const { prometheus, web } = metric.provider;
    prometheus?.headers?.forEach((h, j) =>
      problems.push(...headerProblems(h, `${at}.prometheus.headers[${j}]`)),
    );
    web?.headers?.forEach((h, j) => problems.push(...headerProblems(h, `${at}.web.headers[${j}]`)));
    if (prometheus?.authentication) {
      problems.push(...authenticationProblems(prometheus.authentication, args, `${at}.prometheus`));
    }
  });
  return problems;
}

function argumentProblems(arg: Argument, at: string): string[] {
  const from = arg.valueFrom;
  if (!from) return [];
  const sources = [from.secretKeyRef, from.fieldRef, from.podTemplateHashValue].filter(
    (s) => s !== undefined,
  );
  if (arg.value !== undefined) return [`${at}: must set value or valueFrom, not both`];
  if (sources.length !== 1) {
    return [
      `${at}.valueFrom: must set exactly one of secretKeyRef, fieldRef, podTemplateHashValue`,
    ];
  }
  return [];
}

function headerProblems(header: WebMetricHeader, at: string): string[] {
  const sources = (header.value !== undefined ? 1 : 0) + (header.valueFrom ? 1 : 0);
  return sources === 1 ? [] : [`${at}: must set exactly one of value, valueFrom`];
}

/** Credentials come from Secrets: directly, or through an arg with valueFrom.secretKeyRef. */
function authenticationProblems(
  auth: Authentication,
  args: readonly Argument[],
  at: string,
): string[] {
  const problems: string[] = [];
  const basic = auth.basicAuth;
  if (basic) {
    const path = `${at}.authentication.basicAuth`;
    if (basic.username !== undefined && basic.usernameSecretKeyRef) {
      problems.push(`${path}: must set username or usernameSecretKeyRef, not both`);
    }
    const passwords = (basic.password !== undefined ? 1 : 0) + (basic.passwordSecretKeyRef ? 1 : 0);
    if (passwords !== 1) {
      problems.push(`${path}: must set exactly one of password, passwordSecretKeyRef`);
    } else if (basic.password !== undefined && !fromSecretArg(basic.password, args)) {
      problems.push(
        `${path}.password: must not hold a secret: use passwordSecretKeyRef, or ` +
          '{{args.NAME}} of an arg with valueFrom.secretKeyRef',
      );
    }
  }
  return problems;
}

/**
 * True when `value` is exactly `{{args.NAME}}` and NAME, if declared here, comes from a Secret
 * or is left to the caller (a template's arg without a value is supplied by the Rollout).
 */
function fromSecretArg(value: string, args: readonly Argument[]): boolean {
  const name = ARG_REFERENCE.exec(value)?.[1];
  if (name === undefined) return false;
  const arg = args.find((a) => a.name === name);
  if (arg === undefined) return true;
  return arg.value === undefined && (!arg.valueFrom || arg.valueFrom.secretKeyRef !== undefined);
}
