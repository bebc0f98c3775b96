/**
 * The cluster-wide people mapping (--approval-people): a YAML list of
 * `{name, kubeUser?, groups?, slackUser?}`, read once at start. Approvals count people, so a
 * mapping that could make one identity two people, or is not what the schema says, stops the
 * start with one line naming the entry.
 */
import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import { Compile } from 'typebox/compile';
import Type from 'typebox';
import { PersonSchema } from '../api/index.ts';
import type { Person } from '../api/index.ts';
import { ConfigError } from './config.ts';

const PeopleSchema = Type.Array(PersonSchema);

export async function loadApprovalPeople(file: string | undefined): Promise<readonly Person[]> {
  if (file === undefined) return [];
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`--approval-people: cannot read ${file}: ${(err as Error).message}`);
  }
  return parseApprovalPeople(text, file);
}

/** The people in `text` (YAML); ConfigError naming `source` and the problem. */
export function parseApprovalPeople(text: string, source: string): readonly Person[] {
  if (text.trim() === '') return [];
  let doc: unknown;
  try {
    doc = load(text);
  } catch (err) {
    throw new ConfigError(`--approval-people ${source}: not YAML: ${(err as Error).message}`);
  }
  if (doc === undefined || doc === null) return [];
  const check = Compile(PeopleSchema);
  if (!check.Check(doc)) {
    const first = [...check.Errors(doc)][0];
    const where = first?.instancePath ?? '';
    throw new ConfigError(
      `--approval-people ${source}: must be a list of {name, kubeUser, groups, slackUser}${where ? ` (at ${where}: ${first?.message ?? 'invalid'})` : ''}`,
    );
  }
  const people: readonly Person[] = doc;
  const seen = new Map<string, string>();
  for (const p of people) {
    for (const id of [
      ...(p.kubeUser !== undefined ? [`kubeUser ${p.kubeUser}`] : []),
      ...(p.slackUser !== undefined ? [`slackUser ${p.slackUser}`] : []),
      `name ${p.name}`,
    ]) {
      const other = seen.get(id);
      if (other !== undefined) {
        throw new ConfigError(
          `--approval-people ${source}: ${id} appears for both ${other} and ${p.name}`,
        );
      }
      seen.set(id, p.name);
    }
  }
  return people;
}
