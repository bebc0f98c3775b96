// `lint`, offline: the schema and the controller's spec rules for each Stepwise kind, analyses
// built from the templates in the files given (or noted), skipped kinds, YAML syntax errors by
// line and column, and the command's output and exit codes.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lintDocuments } from '../../../src/cli/lint/documents.ts';
import { runCli } from './harness.ts';

const ROLLOUT = `apiVersion: stepwise.dev/v1alpha1
kind: Rollout
metadata: {name: web, namespace: shop}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
  strategy:
    canary:
      steps:
      - setWeight: 20
      - analysis: {templates: [{templateName: success-rate}]}
`;
const TEMPLATE = `apiVersion: stepwise.dev/v1alpha1
kind: AnalysisTemplate
metadata: {name: success-rate, namespace: shop}
spec:
  metrics:
  - name: success-rate
    provider: {prometheus: {address: http://prom:9090, query: up}}
`;
const lint = (...texts: string[]) =>
  lintDocuments(texts.map((text, i) => ({ file: `f${i + 1}.yaml`, text })));

describe('lint, pure', () => {
  it('a clean file says how many documents it checked', () => {
    const r = lint(`${ROLLOUT}---\n${TEMPLATE}`);
    assert.deepEqual(r, { problems: [], notes: [], clean: ['f1.yaml: 2 documents OK'] });
  });

  it("the controller's rules, one line each with the field path", () => {
    const bad = ROLLOUT.replace('setWeight: 20', 'setWeight: 120')
      .replace('{app: web}}\n  template', '{app: api}}\n  template')
      .replace('name: web,', 'name: Web_1,');
    const r = lint(bad, TEMPLATE);
    const at = 'f1.yaml: document 1 (Rollout/Web_1)';
    assert.deepEqual(r.problems, [
      `${at}: metadata.name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      `${at}: spec.selector: must match spec.template.metadata.labels`,
      `${at}: spec.strategy.canary.steps[0].setWeight: must be between 0 and 100, got 120`,
    ]);
    assert.deepEqual(r.clean, ['f2.yaml: 1 document OK']);
  });

  it('the pod template as Kubernetes has it: a misspelt field by its path, before the rules', () => {
    const bad = ROLLOUT.replace(
      '{name: web, image: nginx}',
      '{name: web, image: nginx, imagePullPolicyy: Always}',
    );
    const r = lint(bad, TEMPLATE);
    assert.deepEqual(r.problems, [
      'f1.yaml: document 1 (Rollout/web): spec.template.spec.containers[0].imagePullPolicyy: unknown field in a Container (did you mean imagePullPolicy?)',
    ]);
  });

  it('blue-green: its rules and its analyses, one line each', () => {
    const blueGreen = ROLLOUT.replace(
      / {2}strategy:\n[\s\S]*$/,
      `  revisionHistoryLimit: 2
  strategy:
    blueGreen:
      activeService: web
      previewService: web
      scaleDownDelayRevisionLimit: 3
      prePromotionAnalysis: {templates: [{templateName: success-rate}]}
      postPromotionAnalysis: {templates: [{templateName: missing}]}
`,
    );
    const r = lint(blueGreen, TEMPLATE);
    const at = 'f1.yaml: document 1 (Rollout/web)';
    assert.deepEqual(r.problems, [
      `${at}: spec.strategy.blueGreen: activeService and previewService must differ`,
      `${at}: spec.revisionHistoryLimit: must not be less than strategy.blueGreen.scaleDownDelayRevisionLimit`,
    ]);
    const fixed = blueGreen.replace('previewService: web', 'previewService: web-preview');
    assert.deepEqual(lint(fixed.replace('RevisionLimit: 3', 'RevisionLimit: 1'), TEMPLATE).notes, [
      `${at}: spec.strategy.blueGreen.postPromotionAnalysis: not checked offline: AnalysisTemplate "missing" not in the files given`,
    ]);
  });

  it('schema problems: unknown fields, wrong types, a step with two actions', () => {
    const r = lint(
      ROLLOUT.replace('- setWeight: 20', '- {setWeight: 20, pause: {}}').replace(
        'selector:',
        'replicas: three\n  selector:',
      ),
    );
    assert.ok(
      r.problems.some((p) => p.endsWith('spec.replicas: must be integer')),
      r.problems.join('\n'),
    );
    assert.ok(
      r.problems.some((p) =>
        p.endsWith('spec.strategy.canary.steps[0]: must set exactly one action'),
      ),
    );
  });

  it('analyses are built from the templates given, in any of the files; absent ones are noted', () => {
    const noted = lint(ROLLOUT);
    assert.deepEqual(noted.problems, []);
    assert.deepEqual(noted.notes, [
      'f1.yaml: document 1 (Rollout/web): spec.strategy.canary.steps[1].analysis: not checked offline: AnalysisTemplate "success-rate" not in the files given',
    ]);
    const clash = TEMPLATE.replace('name: success-rate, namespace', 'name: other, namespace');
    const twice = ROLLOUT.replace(
      '[{templateName: success-rate}]',
      '[{templateName: success-rate}, {templateName: other}]',
    );
    assert.deepEqual(lint(twice, TEMPLATE, clash).problems, [
      'f1.yaml: document 1 (Rollout/web): spec.strategy.canary.steps[1].analysis: metric "success-rate" is defined by more than one template',
    ]);
    const elsewhere = TEMPLATE.replace('namespace: shop', 'namespace: other');
    assert.equal(
      lint(ROLLOUT, elsewhere).notes.length,
      1,
      'a template in another namespace is not it',
    );
  });

  it('templates, runs and approvals by their own schemas and rules', () => {
    const r = lint(
      TEMPLATE.replace('query: up}}', 'query: up}}\n    bogus: 1'),
      `apiVersion: stepwise.dev/v1alpha1
kind: AnalysisRun
metadata: {name: run-1}
spec:
  metrics:
  - name: m
    provider:
      prometheus:
        query: up
        authentication: {basicAuth: {username: u, password: hunter2}}
`,
      `apiVersion: stepwise.dev/v1alpha1
kind: RolloutApproval
metadata: {name: a-1}
spec: {rolloutName: web, revision: abc, step: -1, decision: Maybe, approver: jane}
`,
    );
    assert.deepEqual(r.problems, [
      'f1.yaml: document 1 (AnalysisTemplate/success-rate): spec.metrics[0]: unknown field bogus',
      'f2.yaml: document 1 (AnalysisRun/run-1): spec.metrics[0].provider.prometheus.authentication.basicAuth.password: must not hold a secret: use passwordSecretKeyRef, or {{args.NAME}} of an arg with valueFrom.secretKeyRef',
      'f3.yaml: document 1 (RolloutApproval/a-1): spec.step: must be >= 0',
      'f3.yaml: document 1 (RolloutApproval/a-1): spec.decision: must be equal to one of the allowed values',
    ]);
  });

  it('other kinds are skipped with a note (an Argo Rollout says what to change); wrong versions are problems', () => {
    const r = lint(
      `apiVersion: v1\nkind: Service\nmetadata: {name: web}\n---\n${ROLLOUT.replace('stepwise.dev', 'argoproj.io')}---\napiVersion: stepwise.dev/v1\nkind: Rollout\nmetadata: {name: x}\n---\napiVersion: stepwise.dev/v1alpha1\nkind: Experiment\nmetadata: {name: x}\n`,
    );
    assert.deepEqual(r.notes, [
      'f1.yaml: document 1 (Service/web): skipped: v1 Service is not a Stepwise kind',
      'f1.yaml: document 2 (Rollout/web): skipped: argoproj.io/v1alpha1 Rollout is not a Stepwise kind (Stepwise reads it as stepwise.dev/v1alpha1)',
    ]);
    assert.deepEqual(r.problems, [
      'f1.yaml: document 3 (Rollout/x): apiVersion: must be stepwise.dev/v1alpha1, got stepwise.dev/v1',
      'f1.yaml: document 4 (Experiment/x): kind: must be one of Rollout, AnalysisTemplate, ClusterAnalysisTemplate, AnalysisRun, RolloutApproval',
    ]);
  });

  it('a YAML syntax error names its document, line and column; the other documents are still checked', () => {
    const r = lint(
      `${TEMPLATE}---\nkind: [\n---\n${ROLLOUT.replace('setWeight: 20', 'setWeight: -1')}`,
    );
    assert.deepEqual(r.problems, [
      'f1.yaml: document 2: line 9, column 8: YAML syntax error: unexpected end of the stream within a flow collection',
      'f1.yaml: document 3 (Rollout/web): spec.strategy.canary.steps[0].setWeight: must be between 0 and 100, got -1',
    ]);
    assert.deepEqual(lint('- a\n- b\n').problems, [
      'f1.yaml: document 1 (?): must be a Kubernetes object: a mapping with apiVersion, kind and metadata',
    ]);
  });
});

describe('lint, the command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stepwise-lint-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { HOME: dir, KUBECONFIG: join(dir, 'none') };

  it('clean files: exit 0, no cluster needed; stdin with -', async () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, `${ROLLOUT}---\n${TEMPLATE}`);
    assert.deepEqual(await runCli(['lint', file], { env }), {
      code: 0,
      out: `${file}: 2 documents OK\n`,
      err: '',
    });
    const stdin = await runCli(['lint', '-'], { env, stdin: ROLLOUT });
    assert.equal(stdin.code, 0);
    assert.equal(stdin.out, 'stdin: 1 document OK\n');
    assert.match(stdin.err, /^note: stdin: document 1 \(Rollout\/web\): .*not checked offline/);
  });

  it('problems: one line each on stdout, a count on stderr, exit 1; an unreadable file is one', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, ROLLOUT.replace('setWeight: 20', 'setWeight: 101'));
    const r = await runCli(['lint', file, join(dir, 'missing.yaml')], { env });
    assert.equal(r.code, 1);
    assert.equal(
      r.out,
      `${join(dir, 'missing.yaml')}: cannot read: ENOENT\n${file}: document 1 (Rollout/web): spec.strategy.canary.steps[0].setWeight: must be between 0 and 100, got 101\n`,
    );
    assert.match(r.err, /Error: 2 problems found\n$/);
  });

  it('the shipped examples and the analysis catalogue are clean', async () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const files = [
      'analysis.yaml',
      'approval.yaml',
      'bluegreen.yaml',
      'rollout.yaml',
      'traffic.yaml',
      'workloadref.yaml',
    ].map((f) => join(root, 'deploy', 'examples', f));
    const r = await runCli(['lint', ...files], { env });
    assert.equal(r.code, 0, r.out);
  });
});
