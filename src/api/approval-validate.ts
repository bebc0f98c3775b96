/** Runtime validation of a RolloutApproval's spec against the schema its CRD is generated from. */
import { Compile } from 'typebox/compile';
import { RolloutApprovalSpecSchema } from './approval.ts';
import { schemaProblems, type CompiledSchema } from './validate.ts';

let approvalSpec: CompiledSchema | undefined;

/** Problems with a RolloutApproval's spec, one line each (compiled on first use). */
export function rolloutApprovalSpecProblems(spec: unknown): string[] {
  approvalSpec ??= Compile(RolloutApprovalSpecSchema);
  return schemaProblems(approvalSpec, spec, { kind: 'RolloutApproval', exactlyOne: 'field' });
}
