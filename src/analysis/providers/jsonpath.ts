/**
 * The JSONPath of a `web` metric, as Argo users write it (Kubernetes' JSONPath template syntax):
 * `{$}`, `{$.a.b}`, `{.a.b}`, `{$.items[0].v}`, `{$['key.with.dots']}`, `{$.items[*].v}`. Our
 * own small reader: own properties only (no prototype reach), no filters, no scripts. A path
 * that finds nothing, or syntax it does not know, is an error saying so. Pure.
 */

export type PathResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

type Segment = { readonly key: string } | { readonly index: number } | { readonly all: true };

const MAX_PATH_LENGTH = 512;

export function readJsonPath(path: string, doc: unknown): PathResult {
  const segments = parsePath(path);
  if (!Array.isArray(segments)) return segments;
  let found: unknown[] = [doc];
  let many = false;
  for (const seg of segments) {
    const next: unknown[] = [];
    for (const node of found) {
      if ('all' in seg) {
        many = true;
        if (Array.isArray(node)) next.push(...(node as unknown[]));
        else if (isObject(node)) next.push(...Object.values(node));
      } else if ('index' in seg) {
        if (!Array.isArray(node)) continue;
        const i = seg.index < 0 ? node.length + seg.index : seg.index;
        if (i >= 0 && i < node.length) next.push(node[i]);
      } else if (isObject(node) && Object.hasOwn(node, seg.key)) {
        next.push(node[seg.key]);
      }
    }
    found = next;
  }
  if (found.length === 0)
    return { ok: false, error: `jsonPath ${path} found nothing in the answer` };
  return { ok: true, value: many ? found : found[0] };
}

function parsePath(path: string): Segment[] | { ok: false; error: string } {
  const bad = (why: string) => ({
    ok: false as const,
    error: `jsonPath ${JSON.stringify(path)}: ${why}`,
  });
  if (path.length > MAX_PATH_LENGTH) return bad(`longer than ${MAX_PATH_LENGTH} characters`);
  const inner = /^\{(.*)\}$/s.exec(path.trim())?.[1]?.trim();
  if (inner === undefined) return bad('must be wrapped in braces, e.g. {$.data.value}');
  let rest = inner.startsWith('$') ? inner.slice(1) : inner;
  if (inner !== '' && !inner.startsWith('$') && !inner.startsWith('.')) {
    return bad('must start with $ or .');
  }
  const segments: Segment[] = [];
  while (rest !== '') {
    let m: RegExpExecArray | null;
    if ((m = /^\.([A-Za-z0-9_-]+)/.exec(rest))) segments.push({ key: m[1] ?? '' });
    else if ((m = /^\.?\[(-?\d+)\]/.exec(rest))) segments.push({ index: Number(m[1]) });
    else if ((m = /^\.?\[\*\]|^\.\*/.exec(rest))) segments.push({ all: true });
    else if ((m = /^\.?\['((?:[^'\\]|\\.)*)'\]|^\.?\["((?:[^"\\]|\\.)*)"\]/.exec(rest))) {
      segments.push({ key: (m[1] ?? m[2] ?? '').replace(/\\(.)/g, '$1') });
    } else return bad(`cannot read ${JSON.stringify(rest)} (supported: .key, ['key'], [n], [*])`);
    rest = rest.slice(m[0].length);
  }
  return segments;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
