/**
 * PURE: `kubectl stepwise lint FILE...` without a cluster. Every YAML document of a Stepwise kind
 * is checked against the schema the CRDs are generated from and against the controller's spec
 * rules that need no cluster (src/api). An analysis a Rollout runs is built from the templates
 * in the files given, as the controller would build it; a template not among them is noted, not
 * guessed. Loaded lazily by the lint command: TypeBox and js-yaml stay out of every other path.
 */
import { load, YAMLException } from 'js-yaml';
import type { AnalysisTemplate } from '../../api/analysis.ts';
import {
  analysisRunSpecProblems,
  analysisTemplateSpecProblems,
} from '../../api/analysis-validate.ts';
import {
  ANALYSIS_RUN_KIND,
  ANALYSIS_TEMPLATE_KIND,
  API_VERSION,
  CLUSTER_ANALYSIS_TEMPLATE_KIND,
  GROUP,
  ROLLOUT_APPROVAL_KIND,
  ROLLOUT_KIND,
} from '../../api/keys.ts';
import type { Rollout } from '../../api/rollout.ts';
import { analysisProblem, rolloutAnalyses } from '../../api/rollout-rules.ts';
import { rolloutRuleProblems } from '../../rollout/index.ts';
import { routingProblems } from '../../traffic/index.ts';
import { rolloutApprovalSpecProblems } from '../../api/approval-validate.ts';
import { rolloutSpecProblems, rolloutTemplateProblems } from '../../api/validate.ts';
import { nameProblem } from '../names.ts';

export interface LintInput {
  /** as printed: the path given, or `stdin` */
  readonly file: string;
  readonly text: string;
}

export interface LintReport {
  /** `FILE: document N (Kind/name): field.path: message`, one per problem */
  readonly problems: readonly string[];
  /** what was not checked, and why (skipped kinds, templates not given) */
  readonly notes: readonly string[];
  /** `FILE: N documents OK` for each file without problems */
  readonly clean: readonly string[];
}

interface Doc {
  readonly file: string;
  /** 1-based position in its file */
  readonly index: number;
  readonly value: unknown;
  /** a YAML syntax error, with its line and column in the file */
  readonly syntaxError?: string;
}

interface Meta {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown; namespace?: unknown; generateName?: unknown };
  spec?: unknown;
}

const SPEC_CHECKS: Record<string, (spec: unknown) => string[]> = {
  [ANALYSIS_TEMPLATE_KIND]: analysisTemplateSpecProblems,
  [CLUSTER_ANALYSIS_TEMPLATE_KIND]: analysisTemplateSpecProblems,
  [ANALYSIS_RUN_KIND]: analysisRunSpecProblems,
  [ROLLOUT_APPROVAL_KIND]: rolloutApprovalSpecProblems,
};
const KINDS = [ROLLOUT_KIND, ...Object.keys(SPEC_CHECKS)];

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function lintDocuments(inputs: readonly LintInput[]): LintReport {
  const problems: string[] = [];
  const notes: string[] = [];
  const clean: string[] = [];
  const parsed = inputs.map((input) => ({ input, docs: parse(input) }));
  const templates = templatesIn(parsed.flatMap((p) => p.docs.filter((d) => !d.syntaxError)));
  for (const { input, docs } of parsed) {
    const before = problems.length;
    for (const doc of docs) {
      if (doc.syntaxError !== undefined) {
        problems.push(`${doc.file}: document ${doc.index}: ${doc.syntaxError}`);
      } else {
        lintDocument(doc, templates, problems, notes);
      }
    }
    if (problems.length === before) {
      const n = docs.length;
      clean.push(`${input.file}: ${n} document${n === 1 ? '' : 's'} OK`);
    }
  }
  return { problems, notes, clean };
}

/**
 * The file's non-empty documents, numbered in order. Each document is parsed on its own (split
 * at `---` lines, where YAML starts one), so a syntax error in one still lets the others be
 * checked; the error names its line and column in the file.
 */
function parse(input: LintInput): Doc[] {
  const docs: Doc[] = [];
  for (const chunk of documentChunks(input.text)) {
    const at = { file: input.file, index: docs.length + 1 };
    try {
      const value = load(chunk.text);
      if (value !== null && value !== undefined) docs.push({ ...at, value });
    } catch (err) {
      if (!(err instanceof YAMLException)) throw err;
      const line = chunk.firstLine + (err.mark?.line ?? 0);
      const column = (err.mark?.column ?? 0) + 1;
      const syntaxError = `line ${line}, column ${column}: YAML syntax error: ${err.reason}`;
      docs.push({ ...at, value: undefined, syntaxError });
    }
  }
  return docs;
}

/** The text of each document with the 1-based file line it starts on. */
function documentChunks(text: string): { text: string; firstLine: number }[] {
  const chunks: { text: string; firstLine: number }[] = [];
  let current: string[] = [];
  let firstLine = 1;
  text.split('\n').forEach((line, i) => {
    if (/^---(\s|$)/.test(line) && i > 0) {
      chunks.push({ text: current.join('\n'), firstLine });
      current = [];
      firstLine = i + 1;
    }
    current.push(line);
  });
  chunks.push({ text: current.join('\n'), firstLine });
  return chunks;
}

function isStepwise(doc: Doc, kind: string): boolean {
  const m = doc.value as Meta;
  return m?.apiVersion === API_VERSION && m.kind === kind;
}

/** The templates in the files; only those without problems of their own can build a run. */
function templatesIn(docs: readonly Doc[]) {
  const invalid = new Set<string>();
  const pick = (kind: string) =>
    docs
      .filter((d) => isStepwise(d, kind))
      .map((d) => d.value as AnalysisTemplate)
      .filter((t) => {
        const ok = analysisTemplateSpecProblems(t.spec).length === 0;
        if (!ok) invalid.add(`${kind}/${t.metadata?.name ?? ''}`);
        return ok;
      });
  return {
    templates: pick(ANALYSIS_TEMPLATE_KIND),
    clusterTemplates: pick(CLUSTER_ANALYSIS_TEMPLATE_KIND),
    invalid,
  };
}

function lintDocument(
  doc: Doc,
  templates: ReturnType<typeof templatesIn>,
  problems: string[],
  notes: string[],
): void {
  const m = doc.value as Meta;
  const kind = str(m?.kind);
  const name = str(m?.metadata?.name);
  const where = `${doc.file}: document ${doc.index} (${kind ?? '?'}${name ? `/${name}` : ''})`;
  const problem = (text: string): number => problems.push(`${where}: ${text}`);
  if (typeof m !== 'object' || Array.isArray(m)) {
    problem('must be a Kubernetes object: a mapping with apiVersion, kind and metadata');
    return;
  }
  const apiVersion = str(m.apiVersion);
  if (apiVersion === undefined || kind === undefined) {
    problem(`${apiVersion === undefined ? 'apiVersion' : 'kind'}: must be set`);
    return;
  }
  if (!apiVersion.startsWith(`${GROUP}/`)) {
    const convert = KINDS.includes(kind) ? ` (Stepwise reads it as ${API_VERSION})` : '';
    notes.push(`${where}: skipped: ${apiVersion} ${kind} is not a Stepwise kind${convert}`);
    return;
  }
  if (apiVersion !== API_VERSION) {
    problem(`apiVersion: must be ${API_VERSION}, got ${apiVersion}`);
    return;
  }
  if (!KINDS.includes(kind)) {
    problem(`kind: must be one of ${KINDS.join(', ')}`);
    return;
  }
  if (typeof m.metadata !== 'object' || m.metadata === null) {
    problem('metadata: must be set');
    return;
  }
  if (name !== undefined) {
    const bad = nameProblem(kind === ROLLOUT_KIND ? 'rollout' : 'AnalysisRun', name);
    if (bad !== undefined) problem(`metadata.name: ${bad}`);
  } else if (str(m.metadata?.generateName) === undefined) {
    problem('metadata.name: must be set');
  }
  const check = SPEC_CHECKS[kind];
  if (check !== undefined) {
    check(m.spec).forEach(problem);
    return;
  }
  const rollout = m as Rollout;
  const schema = [...rolloutSpecProblems(m.spec), ...rolloutTemplateProblems(m.spec)];
  if (schema.length > 0) {
    schema.forEach(problem);
    return;
  }
  rolloutRuleProblems(rollout).forEach(problem);
  routingProblems(rollout.spec.strategy.canary).forEach(problem);
  lintAnalyses(rollout, templates, problem, (text) => notes.push(`${where}: ${text}`));
}

/** Each analysis is built from the templates given, or noted when one of them is not there. */
function lintAnalyses(
  rollout: Rollout,
  given: ReturnType<typeof templatesIn>,
  problem: (text: string) => void,
  note: (text: string) => void,
): void {
  const namespace = rollout.metadata?.namespace;
  const sameNamespace = (t: AnalysisTemplate) =>
    namespace === undefined ||
    t.metadata?.namespace === undefined ||
    t.metadata.namespace === namespace;
  const byName = (list: readonly AnalysisTemplate[]) =>
    new Map(list.map((t) => [t.metadata?.name ?? '', t]));
  const maps = {
    templates: byName(given.templates.filter(sameNamespace)),
    clusterTemplates: byName(given.clusterTemplates),
  };
  for (const [at, analysis] of rolloutAnalyses(rollout)) {
    const missing = analysis.templates.filter((ref) =>
      ref.clusterScope === true
        ? !maps.clusterTemplates.has(ref.templateName)
        : !maps.templates.has(ref.templateName),
    );
    if (missing.length > 0) {
      const kinds = missing.map((r) => ({
        kind: r.clusterScope === true ? CLUSTER_ANALYSIS_TEMPLATE_KIND : ANALYSIS_TEMPLATE_KIND,
        name: r.templateName,
      }));
      const invalid = kinds.filter((k) => given.invalid.has(`${k.kind}/${k.name}`));
      const names = (list: typeof kinds) => list.map((k) => `${k.kind} "${k.name}"`).join(', ');
      note(
        invalid.length > 0
          ? `${at}: not checked: ${names(invalid)} has problems of its own`
          : `${at}: not checked offline: ${names(kinds)} not in the files given`,
      );
      continue;
    }
    const bad = analysisProblem(rollout, analysis, maps);
    if (bad !== undefined) problem(`${at}: ${bad}`);
  }
}
