/**
 * Calico's selector language (libcalico-go lib/selector/tokenizer and
 * parser): `k == 'v'`, `k != 'v'`, `k in {'a', 'b'}`, `k not in {...}`,
 * `has(k)`, `k contains 'v'`, `k starts with 'v'` (or `startswith`),
 * `k ends with 'v'`, `all()`, `global()`, `!`, `&&`, `||`, parentheses.
 * Precedence, loosest first: `||`, `&&`, `!` (a run of `!` collapses),
 * then one operation. `!=` and `not in` also match a missing label. An
 * empty selector is `all()`. A syntax error is a value with its column.
 *
 * libcalico-go's recursive-descent parser has no depth limit (Go stacks
 * grow); a JavaScript stack does not, so parentheses nest at most
 * MAX_SELECTOR_DEPTH deep here and a deeper selector is an error value
 * marked `tooDeep` (policy.ts words it as KTL453), never a stack overflow.
 * Every later walk (formatSelectorNode, evaluateSelector) recurses over the
 * tree, whose depth that bound limits too.
 */

export type SelectorNode =
  | { op: "all" }
  | { op: "global" }
  | { op: "has"; key: string }
  | { op: "==" | "!=" | "contains" | "starts with" | "ends with"; key: string; value: string }
  | { op: "in" | "not in"; key: string; values: string[] }
  | { op: "!"; arg: SelectorNode }
  | { op: "&&" | "||"; args: SelectorNode[] };

export interface CalicoSelector {
  /** As written. */
  text: string;
  root: SelectorNode;
  /** Canonical form, equal for selectors that parse alike (the cache key). */
  canonical: string;
}

export interface SelectorError {
  error: string;
  /** 0-based offset into the text where the problem starts. */
  column: number;
  /** Set when the selector is valid Calico syntax nested deeper than ktl evaluates (MAX_SELECTOR_DEPTH). */
  tooDeep?: true;
}

/** Parentheses nest at most this deep (ktl's bound; real selectors nest a few levels). */
export const MAX_SELECTOR_DEPTH = 100;

type Tok =
  | { t: "label"; v: string; at: number }
  | { t: "string"; v: string; at: number }
  | { t: "has"; v: string; at: number }
  | {
      t:
        | "all"
        | "global"
        | "=="
        | "!="
        | "in"
        | "not in"
        | "contains"
        | "starts with"
        | "ends with"
        | "!"
        | "&&"
        | "||"
        | "("
        | ")"
        | "{"
        | "}"
        | ","
        | "eof";
      at: number;
    };

const LABEL = /^[a-zA-Z0-9_./-]+/;
const KEYWORDS: [RegExp, Tok["t"]][] = [
  [/^not\s*in\b/, "not in"],
  [/^in\b/, "in"],
  [/^contains\b/, "contains"],
  [/^starts\s*with\b/, "starts with"],
  [/^ends\s*with\b/, "ends with"],
];

function tokenize(text: string): Tok[] | SelectorError {
  const toks: Tok[] = [];
  let i = 0;
  // After a label the next word is an operator (in, contains, ...), never a label.
  let afterLabel = false;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const rest = text.slice(i);
    const two = rest.slice(0, 2);
    if (two === "==" || two === "!=" || two === "&&" || two === "||") {
      toks.push({ t: two, at: i });
      i += 2;
      afterLabel = false;
      continue;
    }
    if (c === "!" || c === "(" || c === ")" || c === "{" || c === "}" || c === ",") {
      toks.push({ t: c, at: i });
      i++;
      afterLabel = false;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return { error: `unterminated string starting at ${c}`, column: i };
      toks.push({ t: "string", v: text.slice(i + 1, end), at: i });
      i = end + 1;
      afterLabel = false;
      continue;
    }
    const has = /^has\s*\(\s*([a-zA-Z0-9_./-]+)\s*\)/.exec(rest);
    if (has && !afterLabel) {
      toks.push({ t: "has", v: has[1]!, at: i });
      i += has[0].length;
      continue;
    }
    const fn = /^(all|global)\s*\(\s*\)/.exec(rest);
    if (fn && !afterLabel) {
      toks.push({ t: fn[1] as "all" | "global", at: i });
      i += fn[0].length;
      continue;
    }
    if (afterLabel) {
      const kw = KEYWORDS.find(([re]) => re.test(rest));
      if (kw) {
        const m = kw[0].exec(rest)!;
        toks.push({ t: kw[1], at: i } as Tok);
        i += m[0].length;
        afterLabel = false;
        continue;
      }
    }
    const label = LABEL.exec(rest);
    if (label) {
      toks.push({ t: "label", v: label[0], at: i });
      i += label[0].length;
      afterLabel = true;
      continue;
    }
    return { error: `unexpected character "${c}"`, column: i };
  }
  toks.push({ t: "eof", at: text.length });
  return toks;
}

const describeTok = (k: Tok): string =>
  k.t === "eof"
    ? "the end of the selector"
    : k.t === "label" || k.t === "string"
      ? `"${k.v}"`
      : k.t === "has"
        ? `has(${k.v})`
        : `"${k.t}"`;

class Parser {
  i = 0;
  /** Open parentheses around the current token. */
  depth = 0;
  constructor(readonly toks: Tok[]) {}
  peek(): Tok {
    return this.toks[this.i]!;
  }
  fail(msg: string, at = this.peek().at): never {
    throw { error: msg, column: at } satisfies SelectorError;
  }
  or(): SelectorNode {
    const args = [this.and()];
    while (this.peek().t === "||") {
      this.i++;
      args.push(this.and());
    }
    return args.length === 1 ? args[0]! : { op: "||", args };
  }
  and(): SelectorNode {
    const args = [this.operation()];
    while (this.peek().t === "&&") {
      this.i++;
      args.push(this.operation());
    }
    return args.length === 1 ? args[0]! : { op: "&&", args };
  }
  operation(): SelectorNode {
    let negated = false;
    while (this.peek().t === "!") {
      negated = !negated;
      this.i++;
    }
    const k = this.peek();
    let node: SelectorNode;
    if (k.t === "has") {
      this.i++;
      node = { op: "has", key: k.v };
    } else if (k.t === "all" || k.t === "global") {
      this.i++;
      node = { op: k.t };
    } else if (k.t === "(") {
      if (this.depth >= MAX_SELECTOR_DEPTH)
        throw {
          error: `parentheses nest deeper than ${MAX_SELECTOR_DEPTH} levels`,
          column: k.at,
          tooDeep: true,
        } satisfies SelectorError;
      this.i++;
      this.depth++;
      node = this.or();
      this.depth--;
      if (this.peek().t !== ")")
        this.fail(`expected ")" to close the "(" at column ${k.at + 1}, found ${describeTok(this.peek())}`);
      this.i++;
    } else if (k.t === "label") {
      this.i++;
      const op = this.peek();
      if (
        op.t === "==" ||
        op.t === "!=" ||
        op.t === "contains" ||
        op.t === "starts with" ||
        op.t === "ends with"
      ) {
        this.i++;
        const v = this.peek();
        if (v.t !== "string") this.fail(`expected a quoted string after "${op.t}", found ${describeTok(v)}`);
        this.i++;
        node = { op: op.t, key: k.v, value: v.v };
      } else if (op.t === "in" || op.t === "not in") {
        this.i++;
        if (this.peek().t !== "{")
          this.fail(`expected a set literal {'a', 'b'} after "${op.t}", found ${describeTok(this.peek())}`);
        this.i++;
        const values: string[] = [];
        for (;;) {
          const v = this.peek();
          if (v.t !== "string") break;
          values.push(v.v);
          this.i++;
          if (this.peek().t !== ",") break;
          this.i++;
        }
        if (this.peek().t !== "}")
          this.fail(`expected "}" to close the set, found ${describeTok(this.peek())}`);
        this.i++;
        node = { op: op.t, key: k.v, values: [...new Set(values)].sort() };
      } else
        this.fail(
          `expected an operator (==, !=, in, not in, contains, starts with, ends with) after label "${k.v}", found ${describeTok(op)}`,
          op.at,
        );
    } else if (k.t === "eof") this.fail("unexpected end of the selector: an expression is missing");
    else this.fail(`unexpected ${describeTok(k)}: expected a label, has(...), all(), global(), "!" or "("`);
    return negated ? { op: "!", arg: node } : node;
  }
}

const q = (s: string) => (s.includes('"') ? `'${s}'` : `"${s}"`);

export function formatSelectorNode(n: SelectorNode, top = true): string {
  switch (n.op) {
    case "all":
      return "all()";
    case "global":
      return "global()";
    case "has":
      return `has(${n.key})`;
    case "in":
    case "not in":
      return `${n.key} ${n.op} {${n.values.map(q).join(", ")}}`;
    case "!":
      return `!${formatSelectorNode(n.arg, false)}`;
    case "&&":
    case "||": {
      const s = n.args.map((a) => formatSelectorNode(a, false)).join(` ${n.op} `);
      return top ? s : `(${s})`;
    }
    default:
      return `${n.key} ${n.op} ${q(n.value)}`;
  }
}

export function parseCalicoSelector(text: string): CalicoSelector | SelectorError {
  const toks = tokenize(text);
  if (!Array.isArray(toks)) return toks;
  if (toks[0]!.t === "eof") return { text, root: { op: "all" }, canonical: "all()" };
  const p = new Parser(toks);
  try {
    const root = p.or();
    if (p.peek().t !== "eof") p.fail(`unexpected ${describeTok(p.peek())} after a complete expression`);
    return { text, root, canonical: formatSelectorNode(root) };
  } catch (e) {
    if (e && typeof e === "object" && "error" in e) return e as SelectorError;
    throw e;
  }
}

export function isSelectorError(s: CalicoSelector | SelectorError): s is SelectorError {
  return "error" in s;
}

/**
 * Does the selector match these labels? `global()` matches only
 * non-namespaced resources (network sets, host endpoints): `isGlobal` says
 * whether the labelled thing is one.
 */
export function evaluateSelector(n: SelectorNode, labels: Record<string, string>, isGlobal = false): boolean {
  switch (n.op) {
    case "all":
      return true;
    case "global":
      return isGlobal;
    case "has":
      return Object.hasOwn(labels, n.key);
    case "==":
      return Object.hasOwn(labels, n.key) && labels[n.key] === n.value;
    case "!=":
      return !Object.hasOwn(labels, n.key) || labels[n.key] !== n.value;
    case "contains":
      return Object.hasOwn(labels, n.key) && labels[n.key]!.includes(n.value);
    case "starts with":
      return Object.hasOwn(labels, n.key) && labels[n.key]!.startsWith(n.value);
    case "ends with":
      return Object.hasOwn(labels, n.key) && labels[n.key]!.endsWith(n.value);
    case "in":
      return Object.hasOwn(labels, n.key) && n.values.includes(labels[n.key]!);
    case "not in":
      return !Object.hasOwn(labels, n.key) || !n.values.includes(labels[n.key]!);
    case "!":
      return !evaluateSelector(n.arg, labels, isGlobal);
    case "&&":
      return n.args.every((a) => evaluateSelector(a, labels, isGlobal));
    case "||":
      return n.args.some((a) => evaluateSelector(a, labels, isGlobal));
  }
}
