/**
 * The documentation check (test/docs/docs-check.test.ts runs it in `npm test`): in every Markdown
 * file of the documentation,
 * - every relative link names a file or folder that exists, and every `#anchor` a heading of the page
 *   it points to, slugged as GitHub does (github-slugger); links that leave the repository (the
 *   shared design, `../shared/DESIGN.md`) cannot be checked in a clone and are left alone;
 * - every `rampflow …` command line in a code block or code span names a real command of the
 *   commander program (cli/main.ts), with subcommands and long flags it accepts;
 * - every `npm run <script>` names a script of package.json.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import GithubSlugger from 'github-slugger';
import type { Command } from 'commander';

export interface DocsProblem {
  /** Relative to the project root. */
  file: string;
  line: number;
  problem: string;
}

/** The documentation: README.md, CONTRIBUTING.md, every page under docs/, and the READMEs of bench/ and deploy/. */
export function documentationFiles(root: string): string[] {
  const files = ['README.md', 'CONTRIBUTING.md', 'bench/README.md', 'deploy/README.md'].filter((file) =>
    existsSync(join(root, file)),
  );
  const walk = (folder: string): void => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return files;
}

interface MarkdownLine {
  text: string;
  /** 1-based. */
  number: number;
  /** Inside a fenced code block. */
  fenced: boolean;
}

function linesOf(markdown: string): MarkdownLine[] {
  let fence: string | undefined;
  return markdown.split('\n').map((text, index) => {
    const opening = /^\s*(```+|~~~+)/.exec(text);
    if (opening) {
      const marker = opening[1]!;
      if (fence === undefined) fence = marker;
      else if (marker.startsWith(fence)) fence = undefined;
      return { text, number: index + 1, fenced: true };
    }
    return { text, number: index + 1, fenced: fence !== undefined };
  });
}

/** A heading's text as GitHub renders it before slugging: links become their text, code and emphasis lose their marks. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim();
}

/** The anchors a page has: one per heading (GitHub's slugs, `-1`, `-2` for repeats) and explicit `<a id>`/`<a name>`. */
export function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const line of linesOf(markdown)) {
    if (line.fenced) continue;
    const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line.text);
    if (heading) anchors.add(slugger.slug(headingText(heading[1]!)));
    for (const explicit of line.text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(explicit[1]!);
  }
  return anchors;
}

/** The line without its code spans (a link inside backticks is not a link). */
function withoutCodeSpans(text: string): string {
  return text.replace(/(`+)[^`]*?\1/g, (span) => ' '.repeat(span.length));
}

function codeSpans(text: string): string[] {
  return [...text.matchAll(/(`+)([^`]+?)\1/g)].map((match) => match[2]!);
}

/** Link targets on a line: inline links and images `[text](target)`, and reference definitions `[x]: target`. */
function linkTargets(text: string): string[] {
  const plain = withoutCodeSpans(text);
  const targets = [...plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]!);
  const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(plain);
  if (definition) targets.push(definition[1]!);
  return targets;
}

function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

export function checkLinks(root: string, files: string[]): DocsProblem[] {
  const problems: DocsProblem[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsIn = (absolute: string): Set<string> => {
    let anchors = anchorCache.get(absolute);
    if (!anchors) {
      anchors = anchorsOf(readFileSync(absolute, 'utf8'));
      anchorCache.set(absolute, anchors);
    }
    return anchors;
  };
  const rootWithSep = `${resolve(root)}${sep}`;
  for (const file of files) {
    const absoluteFile = resolve(root, file);
    for (const line of linesOf(readFileSync(absoluteFile, 'utf8'))) {
      if (line.fenced) continue;
      for (const target of linkTargets(line.text)) {
        if (isExternal(target)) continue;
        const hashAt = target.indexOf('#');
        const pathPart = decodeURIComponent(hashAt < 0 ? target : target.slice(0, hashAt));
        const anchor = hashAt < 0 ? undefined : decodeURIComponent(target.slice(hashAt + 1));
        const linked = pathPart === '' ? absoluteFile : resolve(dirname(absoluteFile), pathPart);
        if (linked !== resolve(root) && !linked.startsWith(rootWithSep)) continue;
        const report = (problem: string): void => {
          problems.push({ file, line: line.number, problem });
        };
        if (!existsSync(linked)) {
          report(`links ${target}: ${relative(root, linked)} does not exist`);
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (statSync(linked).isDirectory() || !linked.endsWith('.md')) {
          report(`links ${target}: an anchor into something that is not a Markdown page`);
          continue;
        }
        if (!anchorsIn(linked).has(anchor))
          report(`links ${target}: ${relative(root, linked)} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return problems;
}

/** The words of a shell line up to its end, a pipe, a `&&`, a `;` or a comment. */
function commandWords(rest: string): string[] {
  const words: string[] = [];
  for (const word of rest.trim().split(/\s+/)) {
    if (word === '' || word === '\\' || word.startsWith('#') || ['|', '||', '&&', ';', '&', '>', '2>'].includes(word))
      break;
    words.push(word.replace(/[;)]+$/, ''));
  }
  return words;
}

function longOptionsOf(command: Command): Set<string> {
  const names = new Set(['--help']);
  for (let at: Command | null = command; at; at = at.parent) {
    for (const option of at.options) if (option.long) names.add(option.long);
  }
  return names;
}

const WORD = /^[a-z][a-z0-9-]*$/;

/** What is wrong with the words after `rampflow` in one command line, or undefined when the program accepts them. */
export function commandProblem(program: Command, words: string[]): string | undefined {
  let command = program;
  let takingSubcommands = true;
  for (const word of words) {
    if (word.startsWith('--')) {
      takingSubcommands = false;
      const name = word.replace(/[=[].*$/, '');
      if (!/^--[a-z][a-z0-9-]*$/.test(name)) continue;
      if (!longOptionsOf(command).has(name))
        return `\`rampflow ${words.join(' ')}\`: \`${command.name()}\` has no option ${name}`;
      continue;
    }
    if (!takingSubcommands || word.startsWith('-')) {
      takingSubcommands = false;
      continue;
    }
    if (command.commands.length === 0) {
      takingSubcommands = false;
      continue;
    }
    const alternatives = word.split('|');
    // A placeholder (`<command>`, `...`) where a subcommand goes: nothing to check.
    if (!alternatives.every((alternative) => WORD.test(alternative))) return undefined;
    const found = alternatives.map((alternative) =>
      command.commands.find((sub) => sub.name() === alternative || sub.aliases().includes(alternative)),
    );
    const missing = alternatives.filter((_, index) => !found[index]);
    if (missing.length > 0)
      return `\`rampflow ${words.join(' ')}\`: \`${command.name()}\` has no command ${missing.join(', ')}`;
    if (found.length > 1) return undefined;
    command = found[0]!;
  }
  return undefined;
}

/** `rampflow …` invocations in a piece of code: after `npx`, at the start of a line or a `$ ` prompt, or after `&&`, `;`, `|`. */
function rampflowInvocations(code: string): string[][] {
  const invocations: string[][] = [];
  for (const match of code.matchAll(/(?:^|\bnpx\s+|^\s*\$\s+|&&\s*|;\s*|\|\s*)rampflow\s+([^\n]*)/gm))
    invocations.push(commandWords(match[1]!));
  return invocations;
}

function npmScripts(code: string): string[] {
  return [...code.matchAll(/\bnpm\s+run\s+([A-Za-z0-9:._-]+)/g)].map((match) => match[1]!);
}

export function checkCommands(
  root: string,
  files: string[],
  program: Command,
  scripts: Record<string, string>,
): DocsProblem[] {
  const problems: DocsProblem[] = [];
  for (const file of files) {
    for (const line of linesOf(readFileSync(resolve(root, file), 'utf8'))) {
      if (/^\s*(```|~~~)/.test(line.text)) continue;
      // In a table cell, `a\|b` is a code span holding `a|b`.
      const pieces = line.fenced ? [line.text] : codeSpans(line.text.replace(/\\\|/g, '|'));
      for (const code of pieces) {
        for (const words of rampflowInvocations(code)) {
          const problem = commandProblem(program, words);
          if (problem) problems.push({ file, line: line.number, problem });
        }
        for (const script of npmScripts(code)) {
          if (!(script in scripts))
            problems.push({
              file,
              line: line.number,
              problem: `\`npm run ${script}\`: package.json has no script ${script}`,
            });
        }
      }
    }
  }
  return problems;
}
