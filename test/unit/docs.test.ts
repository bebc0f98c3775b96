// The user docs (README.md and docs/*.md) against the repository: every relative link reaches a
// file (and a heading, when it names one), and every `kubectl stepwise ...` command written in a
// shell block parses with the plugin's own command tree, so a renamed flag or command fails here
// rather than in a reader's terminal.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import { inertProgram } from '../../src/cli/reference.ts';

const ROOT = resolve(import.meta.dirname, '..', '..');
const DOCS = join(ROOT, 'docs');
/** Pages other helpers add in the same release; the lead merges them. */
const ARRIVING = new Set(['docs/dashboard.md', 'docs/observability.md']);

const pages = (): string[] => [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((n) => n.endsWith('.md'))
    .map((n) => join(DOCS, n)),
];

interface Block {
  readonly lang: string;
  readonly body: string;
}

/** Fenced blocks; the text outside them; that text without inline code. */
function split(markdown: string): { text: string; prose: string; blocks: Block[] } {
  const blocks: Block[] = [];
  const text = markdown.replace(
    /^( *)```(\w*)[^\n]*\n([\s\S]*?)^\1```$/gm,
    (_m, _i, lang, body) => {
      blocks.push({ lang: String(lang), body: String(body) });
      return '';
    },
  );
  return { text, prose: text.replace(/`[^`\n]*`/g, ''), blocks };
}

/** GitHub's anchors for a page's headings (lower case, punctuation dropped, spaces to dashes,
 *  repeats numbered). */
export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of split(markdown).text.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (m[1] ?? '')
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(markdown: string): string[] {
  const { prose } = split(markdown);
  return [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? '');
}

describe('links in README.md and docs/', () => {
  for (const page of pages()) {
    const name = relative(ROOT, page);
    it(`${name}: every relative link and anchor resolves`, () => {
      const text = readFileSync(page, 'utf8');
      const problems: string[] = [];
      for (const link of links(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
        const [path = '', anchor] = link.split('#');
        const target = path === '' ? page : resolve(dirname(page), path);
        const targetName = relative(ROOT, target);
        if (!existsSync(target)) {
          if (!ARRIVING.has(targetName)) problems.push(`${link}: no ${targetName}`);
          continue;
        }
        if (anchor && target.endsWith('.md')) {
          const known = anchors(readFileSync(target, 'utf8'));
          if (!known.has(anchor)) problems.push(`${link}: no heading #${anchor} in ${targetName}`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  it('the checker itself: a missing file and a missing heading are reported', () => {
    assert.deepEqual(links('see [a](nowhere.md) and `[b](code.md)`'), ['nowhere.md']);
    assert.ok(anchors('## The `kubectl` plugin: get\n').has('the-kubectl-plugin-get'));
    assert.ok(anchors('# A\n# A\n').has('a-1'));
    assert.ok(!anchors('```sh\n# not a heading\n```\n').has('not-a-heading'));
  });
});

/** Shell words of one line, with `|`, `&&`, `;`, redirections and `( )` as separators. */
export function shellSegments(line: string): string[][] {
  const segments: string[][] = [[]];
  let word: string | undefined;
  const end = (): void => {
    if (word !== undefined) segments.at(-1)?.push(word);
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i] ?? '';
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      word = (word ?? '') + line.slice(i + 1, close < 0 ? line.length : close);
      i = close < 0 ? line.length : close;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      end();
    } else if (c === '#' && word === undefined) {
      break;
    } else if ('|&;<>()'.includes(c)) {
      end();
      if (segments.at(-1)?.length) segments.push([]);
    } else {
      word = (word ?? '') + c;
    }
  }
  end();
  return segments.filter((s) => s.length > 0);
}

/** The plugin's arguments of every `kubectl stepwise …` / `kubectl-stepwise …` command written
 *  in a shell block of `markdown`. */
export function pluginCommands(markdown: string): string[][] {
  const found: string[][] = [];
  for (const block of split(markdown).blocks) {
    if (!['sh', 'bash', 'shell', 'console'].includes(block.lang)) continue;
    const lines = block.body.replace(/\\\n/g, ' ').split('\n');
    for (const raw of lines) {
      const line = block.lang === 'console' ? raw.replace(/^\$\s+/, '') : raw;
      for (const words of shellSegments(line)) {
        if (words[0] === 'kubectl' && words[1] === 'stepwise') found.push(words.slice(2));
        else if (words[0] === 'kubectl-stepwise') found.push(words.slice(1));
      }
    }
  }
  return found;
}

/** Parses `args` with the plugin's command tree; commands never run. Undefined when it parses. */
async function parseError(args: readonly string[]): Promise<string | undefined> {
  const { program, output } = inertProgram();
  try {
    await program.parseAsync([...args], { from: 'user' });
    return undefined;
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return undefined; // --help, --version
    return `${err instanceof Error ? err.message : String(err)} ${output().trim()}`;
  }
}

describe('kubectl stepwise commands in the docs', () => {
  it('the extractor finds commands after pipes, in substitutions and across continuations', () => {
    const md = [
      '```sh',
      'kubectl stepwise promote web --full   # a comment',
      'source <(kubectl-stepwise completion bash)',
      'kubectl stepwise status web \\',
      '  --timeout 5m && echo ok',
      '```',
      '```text',
      'kubectl stepwise not a command line',
      '```',
    ].join('\n');
    assert.deepEqual(pluginCommands(md), [
      ['promote', 'web', '--full'],
      ['completion', 'bash'],
      ['status', 'web', '--timeout', '5m'],
    ]);
  });

  it('a misspelt flag or command is caught', async () => {
    assert.match((await parseError(['promote', 'web', '--fulll'])) ?? '', /unknown option/);
    assert.match((await parseError(['promot', 'web'])) ?? '', /unknown command/);
    assert.equal(await parseError(['promote', 'web', '--full']), undefined);
  });

  for (const page of pages()) {
    const name = relative(ROOT, page);
    it(`${name}: every command parses`, async () => {
      const problems: string[] = [];
      for (const args of pluginCommands(readFileSync(page, 'utf8'))) {
        const error = await parseError(args);
        if (error) problems.push(`kubectl stepwise ${args.join(' ')}: ${error}`);
      }
      assert.deepEqual(problems, []);
    });
  }
});
