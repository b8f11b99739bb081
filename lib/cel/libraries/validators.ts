/**
 * Compile-time checks Kubernetes' environment runs after type checking (cel.ASTValidators in
 * environment/base.go since 1.29) that lib/cel's compile can call on a parsed expression: a constant
 * regular expression given to `matches` must compile (cel-go's "invalid matches argument", reported
 * at the literal), so a CRD rule or policy with a broken pattern is refused when written, not when it
 * runs. cel-go checks argument 0 of the call: the pattern of `s.matches(p)`, the string of the global
 * `matches(s, p)`. `celErrorText` formats an issue as cel-go prints it (ERROR: <input>:line:col: ...
 * with the source line and a caret).
 */

import { compileRe2 } from './re2-search';

interface AstNode { op: string; args: unknown; pos?: number }

/** One compile-time issue: its 0-based offset in the expression and cel-go's message. */
export interface CelIssue {
  offset: number;
  message: string;
}

function children(node: AstNode): AstNode[] {
  const out: AstNode[] = [];
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object' && 'op' in (v as object)) out.push(v as AstNode);
  };
  if (node.op !== 'value' && node.op !== 'id') visit(node.args);
  return out;
}

/** The invalid regex literals of an expression's AST (the engine's ParseResult.ast). */
export function regexLiteralIssues(ast: unknown): CelIssue[] {
  const issues: CelIssue[] = [];
  const stack: AstNode[] = [ast as AstNode];
  while (stack.length) {
    const node = stack.pop() as AstNode;
    let literal: AstNode | undefined;
    if (node.op === 'rcall') {
      const [name, , args] = node.args as [string, AstNode, AstNode[]];
      if (name === 'matches') literal = args[0];
    } else if (node.op === 'call') {
      const [name, args] = node.args as [string, AstNode[]];
      if (name === 'matches') literal = args[0];
    }
    if (literal && literal.op === 'value' && typeof literal.args === 'string') {
      try {
        compileRe2(literal.args);
      } catch {
        issues.push({ offset: literal.pos ?? 0, message: 'invalid matches argument' });
      }
    }
    stack.push(...children(node));
  }
  return issues.sort((a, b) => a.offset - b.offset);
}

/** An issue as cel-go prints it: `ERROR: <input>:1:14: message`, the source line, and a caret under the column. */
export function celErrorText(expression: string, issue: CelIssue): string {
  const before = expression.slice(0, issue.offset);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = Array.from(expression.slice(lineStart, issue.offset)).length;
  const sourceLine = expression.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${issue.message}\n | ${sourceLine}\n | ${'.'.repeat(column)}^`;
}
