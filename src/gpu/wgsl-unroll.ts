/**
 * Unrolls WGSL loops of the form `for (var i = 0u; i < BOUND; i++) { ... }`
 * whose BOUND is a constant expression of literals and module-scope `const`
 * u32 declarations (the radix sort's prelude declares ITEMS, DIGIT_BITS, ...).
 * Each iteration becomes `{ const i = Nu; ... }`.
 *
 * Why: a shader's per-invocation arrays (`var keys: array<u32, ITEMS>`) live
 * in registers only where every index is a compile-time constant. WGSL has no
 * unroll attribute, so whether a loop index becomes one is up to the driver's
 * compiler after Dawn's translation; unrolled source makes it so by
 * construction. (Measured effect on the sort: docs/benchmarks.md.)
 *
 * Loops whose body assigns the loop variable, uses break or continue, or
 * whose bound is not a known constant or above maxTrips are left as they are.
 */

const LOOP_HEADER = /for \(var (\w+) = 0u; \1 < ([^;]+); \1\+\+\) \{/g;
const CONST_DECL = /const (\w+)\s*:\s*u32\s*=\s*([^;]+);/g;

export function unrollConstantLoops(source: string, maxTrips = 32): string {
  const constants = new Map<string, number>();
  for (const [, name, expr] of source.matchAll(CONST_DECL)) {
    const value = evaluate(expr!, constants);
    if (value !== undefined) constants.set(name!, value);
  }
  let out = source;
  let from = 0;
  for (;;) {
    LOOP_HEADER.lastIndex = from;
    const m = LOOP_HEADER.exec(out);
    if (!m) return out;
    const [header, name, boundExpr] = m as unknown as [string, string, string];
    const open = m.index + header.length - 1;
    const close = matchingBrace(out, open);
    const body = out.slice(open + 1, close);
    const trips = evaluate(boundExpr, constants);
    if (trips === undefined || trips > maxTrips || !unrollable(body, name)) {
      from = m.index + header.length;
      continue;
    }
    const copies = Array.from({ length: trips }, (_, i) => `{ const ${name} = ${i}u;${body}}`);
    out = out.slice(0, m.index) + `{${copies.join(' ')}}` + out.slice(close + 1);
    from = m.index;  // the copies may hold loops of their own
  }
}

function unrollable(body: string, name: string): boolean {
  if (/\b(break|continue)\b/.test(body)) return false;
  const assigned = new RegExp(`\\b${name}\\s*(=(?!=)|\\+=|-=|\\*=|/=|<<=|>>=|\\+\\+|--)`);
  return !assigned.test(body);
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return i;
  }
  throw new Error(`unbalanced braces after offset ${open}`);
}

/** Integer value of a u32 expression of literals, known constants, + - * / and parentheses; undefined otherwise. */
export function evaluate(expr: string, constants: ReadonlyMap<string, number>): number | undefined {
  const tokens = expr.match(/\d+u?|\w+|[-+*/()]|\S/g) ?? [];
  let at = 0;
  const peek = () => tokens[at];
  const primary = (): number | undefined => {
    const t = tokens[at++];
    if (t === undefined) return undefined;
    if (t === '(') {
      const v = sum();
      return tokens[at++] === ')' ? v : undefined;
    }
    if (/^\d+u?$/.test(t)) return parseInt(t, 10);
    return constants.get(t);
  };
  const product = (): number | undefined => {
    let v = primary();
    while (v !== undefined && (peek() === '*' || peek() === '/')) {
      const op = tokens[at++];
      const r = primary();
      if (r === undefined || (op === '/' && r === 0)) return undefined;
      v = op === '*' ? v * r : Math.floor(v / r);
    }
    return v;
  };
  const sum = (): number | undefined => {
    let v = product();
    while (v !== undefined && (peek() === '+' || peek() === '-')) {
      const op = tokens[at++];
      const r = product();
      if (r === undefined) return undefined;
      v = op === '+' ? v + r : v - r;
    }
    return v;
  };
  const v = sum();
  return at === tokens.length ? v : undefined;
}
