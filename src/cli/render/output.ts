/**
 * PURE: `-o json|yaml|name` as kubectl prints them: the objects as the API server returned
 * them (managedFields left out unless asked for, as kubectl does), a list as a `List` kind, and
 * `-o name` as `rollout.stepwise.dev/NAME`.
 */
import { GROUP } from '../../api/keys.ts';
import { CliError } from '../errors.ts';

export const OUTPUT_FORMATS = ['json', 'yaml', 'name'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function parseOutputFormat(value: string): OutputFormat {
  if ((OUTPUT_FORMATS as readonly string[]).includes(value)) return value as OutputFormat;
  throw new CliError(
    `unable to match a printer suitable for the output format "${value}", allowed formats are: ${OUTPUT_FORMATS.join(',')}`,
  );
}

/** What the objects are, for `-o name` and for items the server returned without a kind. */
export interface ObjectKind {
  readonly kind: string;
  readonly apiVersion: string;
}

interface Printable {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; managedFields?: unknown };
}

export interface PrintOptions {
  readonly showManagedFields?: boolean;
}

function prepared<T extends Printable>(obj: T, kind: ObjectKind, opts: PrintOptions): T {
  const out = { apiVersion: kind.apiVersion, kind: kind.kind, ...obj };
  if (!opts.showManagedFields && out.metadata?.managedFields !== undefined) {
    const { managedFields: _dropped, ...metadata } = out.metadata;
    return { ...out, metadata };
  }
  return out;
}

/** js-yaml is loaded only for -o yaml: `version` and `--help` stay fast. */
async function serialize(value: unknown, format: 'json' | 'yaml'): Promise<string> {
  if (format === 'json') return `${JSON.stringify(value, null, 4)}\n`;
  const { dump } = await import('js-yaml');
  return dump(value, { noRefs: true, lineWidth: -1 });
}

const nameOf = (obj: Printable, kind: ObjectKind): string =>
  `${kind.kind.toLowerCase()}.${GROUP}/${obj.metadata?.name ?? ''}`;

/** One object. */
export async function printObject(
  obj: Printable,
  kind: ObjectKind,
  format: OutputFormat,
  opts: PrintOptions = {},
): Promise<string> {
  if (format === 'name') return `${nameOf(obj, kind)}\n`;
  return serialize(prepared(obj, kind, opts), format);
}

/** A list: kubectl's `List` kind (empty when nothing matched), or one name a line. */
export async function printList(
  items: readonly Printable[],
  kind: ObjectKind,
  format: OutputFormat,
  opts: PrintOptions = {},
): Promise<string> {
  if (format === 'name') return items.map((o) => `${nameOf(o, kind)}\n`).join('');
  return serialize(
    {
      apiVersion: 'v1',
      kind: 'List',
      metadata: { resourceVersion: '' },
      items: items.map((o) => prepared(o, kind, opts)),
    },
    format,
  );
}
