/** Small helpers the generated reference pages share. */

/** The line under each generated page's title: where it comes from and how to regenerate it. */
export function generatedNotice(source: string): string {
  return `<!-- Generated from ${source.replace(/`/g, '')} by \`npm run docs:generate\`: do not edit by hand. -->\nGenerated from ${source} by \`npm run docs:generate\`; a test fails when this page is stale.`;
}

/** Text that is safe inside one Markdown table cell: no pipe ends the cell early, no newline ends the row. */
export function markdownCell(text: string | undefined): string {
  return (text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
