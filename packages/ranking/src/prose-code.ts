/** The body of a chunk as indexed: prose and code apart, so each column gets its own weight. */
export interface ProseAndCode {
  prose: string;
  code: string;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Splits markdown into prose and fenced code. Code in documentation is long and repetitive
 * (config files, comments, boilerplate), so at full weight a code sample that mentions a word
 * many times outranks the paragraph that explains it; indexed in its own column it still
 * matches, with less weight. An unclosed fence runs to the end, as the chunker reads it.
 */
export function splitProseAndCode(markdown: string): ProseAndCode {
  const prose: string[] = [];
  const code: string[] = [];
  let open: string | undefined;
  for (const line of markdown.split('\n')) {
    const fence = FENCE.exec(line)?.[1];
    if (open !== undefined) {
      code.push(line);
      if (fence && fence[0] === open[0] && fence.length >= open.length) open = undefined;
    } else if (fence) {
      open = fence;
      code.push(line);
    } else {
      prose.push(line);
    }
  }
  return { prose: prose.join('\n'), code: code.join('\n') };
}
