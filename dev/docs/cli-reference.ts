/**
 * docs/reference/cli.md, generated from the commander program itself (cli/main.ts's `buildProgram`),
 * so every command, argument and flag the page lists is one `rampflow` accepts, with the words of its
 * own `--help`. test/docs/reference-pages.test.ts fails while the page is stale.
 */
import { relative, sep } from 'node:path';
import type { Argument, Command, Option } from 'commander';
import { generatedNotice, markdownCell } from './markdown';

/** Every command under `program`, depth first, in the order they were registered (help order). */
export function commandsOf(program: Command): Command[] {
  return program.commands.flatMap((command) => [command, ...commandsOf(command)]);
}

/** `rampflow journey status`: the words a user types to reach `command`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Code inside a table cell: a pipe must be escaped there even between backticks (`<json|@file>`). */
export function tableCode(text: string): string {
  return text.replace(/\|/g, '\\|');
}

function visibleOptions(command: Command): Option[] {
  return command.options.filter((option) => !(option as Option & { hidden?: boolean }).hidden);
}

function argumentText(argument: Argument): string {
  const name = `${argument.name()}${argument.variadic ? '...' : ''}`;
  return argument.required ? `<${name}>` : `[${name}]`;
}

/** A default as the page shows it: a path inside the clone relative to it, so the page is the same on every machine. */
function defaultText(option: Option, projectRoot: string): string {
  if (option.defaultValue === undefined || option.negate) return '';
  if (option.defaultValueDescription) return option.defaultValueDescription;
  const value: unknown = option.defaultValue;
  if (typeof value === 'string' && value.startsWith(`${projectRoot}${sep}`))
    return `\`${relative(projectRoot, value)}\` (in the clone)`;
  return `\`${JSON.stringify(value)}\``;
}

function commandSection(command: Command, projectRoot: string): string {
  const path = commandPath(command);
  const lines = [`## \`${path}\``, ''];
  if (command.description()) lines.push(command.description(), '');
  const args = command.registeredArguments.map(argumentText).join(' ');
  const usage =
    command.commands.length > 0
      ? `${path} <command>`
      : `${path}${visibleOptions(command).length > 0 ? ' [options]' : ''}${args ? ` ${args}` : ''}`;
  lines.push('```', usage, '```', '');
  if (command.commands.length > 0) {
    lines.push('| command | what it does |', '| --- | --- |');
    for (const sub of command.commands)
      lines.push(`| [\`${commandPath(sub)}\`](#${anchorOf(sub)}) | ${markdownCell(sub.description())} |`);
    lines.push('');
  }
  const described = command.registeredArguments.filter((argument) => argument.description);
  if (described.length > 0) {
    lines.push('| argument | what it is |', '| --- | --- |');
    for (const argument of described)
      lines.push(`| \`${tableCode(argumentText(argument))}\` | ${markdownCell(argument.description)} |`);
    lines.push('');
  }
  const options = visibleOptions(command);
  if (options.length > 0) {
    lines.push('| option | what it does | default |', '| --- | --- | --- |');
    for (const option of options)
      lines.push(
        `| \`${tableCode(option.flags)}\` | ${markdownCell(option.description)} | ${markdownCell(defaultText(option, projectRoot))} |`,
      );
    lines.push('');
  }
  return lines.join('\n');
}

/** GitHub's anchor of a command's heading: the heading is `` `rampflow a b` ``, so `rampflow-a-b`. */
export function anchorOf(command: Command): string {
  return commandPath(command).replace(/ /g, '-');
}

export function cliReferenceMarkdown(program: Command, projectRoot: string): string {
  const commands = commandsOf(program);
  return [
    '# CLI reference: `rampflow`',
    '',
    generatedNotice('the commander program (`cli/main.ts`)'),
    '',
    `${program.description()} Run it as \`npx rampflow\` in a clone (the sources through tsx), or \`node dist/cli/main.js\` in the image. Every command also takes \`--help\`.`,
    '',
    '| command | what it does |',
    '| --- | --- |',
    ...commands.map(
      (command) => `| [\`${commandPath(command)}\`](#${anchorOf(command)}) | ${markdownCell(command.description())} |`,
    ),
    '',
    ...commands.map((command) => commandSection(command, projectRoot)),
  ]
    .join('\n')
    .replace(/\n+$/, '\n');
}
