import { Lexer, Source, TokenKind } from 'graphql';
import { appError } from '../errors.js';
import { MAX_NESTING } from '../pipeline/nesting.js';

const OPENS: ReadonlySet<string> = new Set([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSES: ReadonlySet<string> = new Set([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** Characters that may open a level: a document with no more of them than the limit cannot nest past it. */
function openers(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b || c === 0x28) count += 1;
  }
  return count;
}

/**
 * Refuses a document that nests deeper than MAX_NESTING braces, brackets and parentheses before graphql-js
 * parses it: its parser recurses per level (a list value 2,000 deep, within the default token limit,
 * overflowed the stack), its lexer does not. Only the first `maxTokens` tokens are looked at: past them
 * the parser refuses the document with its own message, as it does a syntax error the lexer meets here.
 */
export function checkDocumentNesting(query: string, maxTokens: number): void {
  if (openers(query) <= MAX_NESTING) return;
  const lexer = new Lexer(new Source(query));
  let depth = 0;
  try {
    for (let token = lexer.advance(), seen = 1; token.kind !== TokenKind.EOF && seen <= maxTokens; token = lexer.advance(), seen++) {
      if (OPENS.has(token.kind)) depth += 1;
      else if (CLOSES.has(token.kind)) depth -= 1;
      if (depth > MAX_NESTING) break;
    }
  } catch {
    return;
  }
  if (depth > MAX_NESTING) throw appError('BAD_REQUEST', `The document nests deeper than ${MAX_NESTING} levels of braces, brackets and parentheses`);
}
