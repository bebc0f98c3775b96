// `{{args.name}}` placeholders in queries, URLs, headers and bodies.

/** `{{args.name}}` → the argument; an unknown name is an error naming it. */
export function substituteArgs(text: string, args: Readonly<Record<string, string>>): string {
  return text.replace(/\{\{\s*args\.([A-Za-z0-9_.-]+)\s*\}\}/g, (_m, name: string) => {
    const v = args[name];
    if (v === undefined) throw new Error(`unknown argument {{args.${name}}}`);
    return v;
  });
}
