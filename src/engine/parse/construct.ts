/**
 * js-yaml's events -> the values kubectl's decoder makes of them, with a
 * position record on every collection (positions.ts). The one place that
 * decides what a YAML doc means: `<<` merges, duplicate keys (KTL106), keys
 * as sigs.k8s.io/yaml's JSON conversion spells them, YAML 1.1 scalars
 * (scalars.ts, KTL108), anchors and aliases under go-yaml's expansion
 * budget. The events come from js-yaml or from the block scanner
 * (blockScan.ts), which gives the same ones for the text it reads.
 */
import { EVENT_ID } from "js-yaml";
import type { AliasEvent, Event, MappingEvent, ScalarEvent, SequenceEvent } from "js-yaml";
import type { Diagnostic } from "./diagnostics.ts";
import type { SourceText } from "./source.ts";
import { isArrayIndex, MAX_DEPTH, newOrigin, PosWriter, type YamlDocument } from "./positions.ts";
import { DocError, keyString, newMapping, scalarValue, yaml11Warning } from "./scalars.ts";

/**
 * go-yaml's alias budget (decode.go `allowedAliasRatio`; sigs.k8s.io/yaml
 * decodes with its goyaml.v2 fork): of the nodes a decode visits, counting
 * every node an alias expands to, up to 99% may come from aliases in a doc of
 * up to 400,000 nodes, and only 10% from 4,000,000 on. A doc's expanded size
 * is thereby at most about a hundred times its written size and, past
 * 4,000,000 nodes, 1.1 times: every later walk over its values is bounded.
 */
const ALIAS_RATIO_LOW = 400_000;
const ALIAS_RATIO_HIGH = 4_000_000;
export function allowedAliasRatio(decoded: number): number {
  if (decoded <= ALIAS_RATIO_LOW) return 0.99;
  if (decoded >= ALIAS_RATIO_HIGH) return 0.1;
  return 0.99 - 0.89 * ((decoded - ALIAS_RATIO_LOW) / (ALIAS_RATIO_HIGH - ALIAS_RATIO_LOW));
}

/** An anchor: its value, and the size and height its value expands to. */
interface Anchor {
  value: unknown;
  /** Nodes visited when the value is decoded (go-yaml's decodeCount), aliases expanded. */
  size: number;
  /** Collection levels of the expanded value. */
  height: number;
  /** The anchored collection is still open: an alias to it would make a cycle. */
  open: boolean;
}

/** An open collection. Frames are reused by depth; `at` is their scratch position record. */
interface Frame {
  value: Record<string, unknown> | unknown[];
  isSeq: boolean;
  /** `[unused, offset, ...]` being filled (item offsets, or key and offset pairs); written to the origin's table when the collection closes. */
  at: (string | number)[];
  /** Used length of `at`. */
  n: number;
  /** For a mapping: the key waiting for its value. */
  pendingKey: string;
  pendingKeyOffset: number;
  /** The waiting key is a plain `<<`. */
  pendingMerge: boolean;
  expectingKey: boolean;
  /** The value of a merge key, applied once complete (before the next key or at the mapping's end). */
  mergeValue: unknown;
  mergeOffset: number;
  hasMerge: boolean;
  /**
   * For a mapping: its record keeps its keys (positions.ts), because the
   * mapping's key order is not the order its keys were written in (a `<<`
   * merge set keys, or a key is an array index, which JavaScript orders first).
   */
  keyed: boolean;
  /** Expanded size and height of the collection so far. */
  size: number;
  height: number;
  anchor: Anchor | undefined;
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** goyaml.v2 decode.go merge(): a mapping, or a list of mappings of which the earlier win. */
function applyMerge(map: Record<string, unknown>, src: unknown, offset: number): void {
  const bad = () =>
    new DocError(
      offset,
      "KTL101",
      "map merge requires map or sequence of maps as the value (the value of `<<`)",
    );
  const copy = (m: Record<string, unknown>) => {
    for (const k of Object.keys(m)) map[k] = m[k];
  };
  if (isMapping(src)) copy(src);
  else if (Array.isArray(src)) {
    for (const s of src) if (!isMapping(s)) throw bad();
    for (let i = src.length - 1; i >= 0; i--) copy(src[i] as Record<string, unknown>);
  } else throw bad();
}

/** The documents of one text, built event by event (construct). */
class Builder {
  readonly docs: YamlDocument[] = [];
  private readonly frames: Frame[] = [];
  private depth = 0;
  private readonly anchors = new Map<string, Anchor>();
  private docValue: unknown = undefined;
  private docStart = -1;
  /** Where the last event with a place in the text ended: an empty scalar has none (offset -1). */
  private lastEnd = 0;
  /** go-yaml's counters: nodes decoded, and of them the ones reached through an alias. */
  private decoded = 0;
  private aliased = 0;
  private index: number;
  /** An offset of `text` in the source: `base` plus it, or plus where it was before the lenient reading padded lines (readLeniently). */
  private readonly off: (o: number) => number;
  /** Writes the position records, relative to its origin's base (positions.ts). */
  readonly pos: PosWriter;
  /** The origin's base: where the first text written under it starts in the source. */
  private readonly base: number;

  constructor(
    private readonly source: SourceText,
    private readonly text: string,
    base: number,
    firstIndex: number,
    private readonly diagnostics: Diagnostic[],
    private readonly budget: { yaml11: number },
    remap?: (offset: number) => number,
    pos?: PosWriter,
  ) {
    this.off = remap ? (o: number) => base + remap(o) : (o: number) => base + o;
    this.pos = pos ?? new PosWriter(newOrigin(source, base));
    this.base = this.pos.origin.base;
    this.index = firstIndex - 1;
  }

  private warn11(raw: string, offset: number, asKey: boolean) {
    if (this.budget.yaml11 <= 0) return;
    const w = yaml11Warning(raw, asKey);
    if (!w) return;
    this.budget.yaml11--;
    this.diagnostics.push({
      code: "KTL108",
      severity: "warning",
      file: this.source.file,
      doc: this.index,
      ...this.source.positionAt(offset),
      message: w.message,
      hint: w.hint,
    });
  }

  private flushMerge(f: Frame) {
    f.hasMerge = false;
    f.keyed = true;
    applyMerge(f.value as Record<string, unknown>, f.mergeValue, f.mergeOffset);
    f.mergeValue = undefined;
  }

  /** Places a value in the open collection; `size`/`height` are its expanded size and height. */
  private place(
    value: unknown,
    offset: number,
    size: number,
    height: number,
    keyText: string | undefined,
    plainMerge: boolean,
  ) {
    if (this.depth === 0) {
      this.docValue = value;
      if (this.docStart < 0) this.docStart = offset;
      return;
    }
    const top = this.frames[this.depth - 1]!;
    top.size += size;
    if (height + 1 > top.height) top.height = height + 1;
    if (top.isSeq) {
      top.at[top.n++] = this.off(offset) - this.base;
      (top.value as unknown[]).push(value);
      return;
    }
    if (top.expectingKey) {
      if (top.hasMerge) this.flushMerge(top);
      top.pendingKey = keyText ?? keyString(value, this.off(offset));
      top.pendingKeyOffset = this.off(offset);
      top.pendingMerge = plainMerge;
      top.expectingKey = false;
      return;
    }
    top.expectingKey = true;
    if (top.pendingMerge) {
      // Applied when the value is complete: an inline mapping is still empty here.
      top.mergeValue = value;
      top.mergeOffset = top.pendingKeyOffset;
      top.hasMerge = true;
      return;
    }
    const key = top.pendingKey;
    const map = top.value as Record<string, unknown>;
    let seen = -1;
    // A repeated key, or one a merge key set before (goyaml.v2's strict decoding: "already set in map").
    if (Object.hasOwn(map, key)) {
      this.diagnostics.push({
        code: "KTL106",
        severity: "warning",
        file: this.source.file,
        doc: this.index,
        ...this.source.positionAt(top.pendingKeyOffset),
        message: `duplicate key "${key}": the last value wins (the apiserver rejects this under strict decoding)`,
      });
      for (let i = 2; i < top.n; i += 2) if (top.at[i] === key) seen = i;
    }
    map[key] = value;
    if (seen >= 0) top.at[seen + 1] = top.pendingKeyOffset - this.base;
    else {
      if (!top.keyed && isArrayIndex(key)) top.keyed = true;
      top.at[top.n++] = key;
      top.at[top.n++] = top.pendingKeyOffset - this.base;
    }
  }

  document(): void {
    this.index++;
    this.docValue = undefined;
    this.docStart = -1;
    this.decoded = 0;
    this.aliased = 0;
    this.anchors.clear();
    this.depth = 0;
    // Values placed with an empty stack become the doc's value; its POP closes it.
    this.docs.push({ index: this.index, line: 0, value: undefined });
  }

  collection(ev: MappingEvent | SequenceEvent): void {
    this.decoded++;
    const isSeq = ev.type === EVENT_ID.SEQUENCE;
    const value: Record<string, unknown> | unknown[] = isSeq ? [] : newMapping();
    let anchor: Anchor | undefined;
    if (ev.anchorStart >= 0) {
      anchor = { value, size: 1, height: 1, open: true };
      this.anchors.set(this.text.slice(ev.anchorStart, ev.anchorEnd), anchor);
    }
    // Size and height are added to the parent when the collection closes.
    this.place(value, ev.start, 0, 0, undefined, false);
    if (ev.start >= 0) this.lastEnd = ev.start;
    let f = this.frames[this.depth];
    if (!f) {
      this.frames[this.depth] = f = {
        value,
        isSeq,
        at: [0, 0],
        n: 2,
        pendingKey: "",
        pendingKeyOffset: 0,
        pendingMerge: false,
        expectingKey: false,
        mergeValue: undefined,
        mergeOffset: 0,
        hasMerge: false,
        keyed: false,
        size: 1,
        height: 1,
        anchor,
      };
    }
    f.value = value;
    f.isSeq = isSeq;
    f.at[1] = this.off(ev.start) - this.base;
    f.n = 2;
    f.expectingKey = !isSeq;
    f.pendingMerge = false;
    f.hasMerge = false;
    f.keyed = false;
    f.mergeValue = undefined;
    f.size = 1;
    f.height = 1;
    f.anchor = anchor;
    this.depth++;
  }

  scalar(ev: ScalarEvent): void {
    this.decoded++;
    const r = scalarValue(this.text, ev);
    const v = r.value;
    if (ev.anchorStart >= 0)
      this.anchors.set(this.text.slice(ev.anchorStart, ev.anchorEnd), {
        value: v,
        size: 1,
        height: 0,
        open: false,
      });
    const top = this.depth > 0 ? this.frames[this.depth - 1]! : undefined;
    const asKey = top !== undefined && !top.isSeq && top.expectingKey;
    if (r.plainRaw !== undefined) this.warn11(r.plainRaw, this.off(ev.valueStart), asKey);
    // An empty key (`: value`) has no place of its own: it stands where its `:` is.
    const at = ev.valueStart >= 0 ? ev.valueStart : asKey ? this.nextToken() : ev.valueStart;
    if (ev.valueEnd >= 0) this.lastEnd = ev.valueEnd;
    this.place(v, at, 1, 0, asKey ? keyString(v, this.off(at)) : undefined, asKey && r.plainRaw === "<<");
  }

  /** The first character after the last event that is not blank or a comment (an indicator such as `:`). */
  private nextToken(): number {
    const t = this.text;
    let i = this.lastEnd;
    while (i < t.length) {
      const c = t.charCodeAt(i);
      if (c === 0x23 /* # */) while (i < t.length && t.charCodeAt(i) !== 0x0a) i++;
      else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
    return i;
  }

  alias(ev: AliasEvent): void {
    if (ev.anchorEnd >= 0) this.lastEnd = ev.anchorEnd;
    const name = this.text.slice(ev.anchorStart, ev.anchorEnd);
    const at = this.off(ev.anchorStart);
    const a = this.anchors.get(name);
    // goyaml.v2 decode.go: "unknown anchor referenced", "anchor value contains itself".
    if (!a) throw new DocError(at, "KTL101", `unknown anchor '${name}' referenced`);
    if (a.open)
      throw new DocError(
        at,
        "KTL105",
        `anchor '${name}' value contains itself (an alias inside the collection it names)`,
      );
    this.decoded += a.size;
    this.aliased += a.size;
    if (
      this.aliased > 100 &&
      this.decoded > 1000 &&
      this.aliased / this.decoded > allowedAliasRatio(this.decoded)
    ) {
      throw new DocError(
        at,
        "KTL105",
        `document contains excessive aliasing (aliases expand to ${this.aliased} nodes of ${this.decoded})`,
      );
    }
    if (this.depth + a.height > MAX_DEPTH)
      throw new DocError(
        at,
        "KTL101",
        `nesting too deep: the alias *${name} nests deeper than ${MAX_DEPTH} levels`,
      );
    this.place(a.value, ev.anchorStart, a.size, a.height, undefined, false);
  }

  /**
   * Swaps a closed sequence for an exact-size copy wherever it was placed
   * (its parent, the doc, its anchor): an array grown by push keeps room for
   * 16 more items, 136 bytes a short list keeps for as long as the values live.
   * Nothing else can hold it yet: an alias to an open collection is refused.
   */
  private exactSize(f: Frame): void {
    const old = f.value as unknown[];
    const exact = old.slice();
    f.value = exact;
    if (f.anchor) f.anchor.value = exact;
    if (this.depth === 0) {
      if (this.docValue === old) this.docValue = exact;
      return;
    }
    const parent = this.frames[this.depth - 1]!;
    if (parent.isSeq) {
      const items = parent.value as unknown[];
      if (items[items.length - 1] === old) items[items.length - 1] = exact;
    } else if (parent.hasMerge && parent.mergeValue === old) parent.mergeValue = exact;
    else {
      const map = parent.value as Record<string, unknown>;
      if (map[parent.pendingKey] === old) map[parent.pendingKey] = exact;
    }
  }

  pop(): void {
    if (this.depth > 0) {
      const f = this.frames[--this.depth]!;
      if (f.hasMerge) this.flushMerge(f);
      if (f.isSeq && (f.value as unknown[]).length > 0) this.exactSize(f);
      const offset = f.at[1] as number;
      if (f.isSeq) this.pos.record(f.value, offset, f.at, 2, f.n, 1);
      else if (f.keyed) this.pos.keyed(f.value, f.at.slice(1, f.n));
      // Most mappings: their keys' offsets in their own key order, no key.
      else this.pos.record(f.value, offset, f.at, 3, f.n, 2);
      if (f.anchor) {
        f.anchor.size = f.size;
        f.anchor.height = f.height;
        f.anchor.open = false;
      }
      if (this.depth > 0) {
        const parent = this.frames[this.depth - 1]!;
        parent.size += f.size;
        if (f.height + 1 > parent.height) parent.height = f.height + 1;
      }
    } else {
      const d = this.docs[this.docs.length - 1];
      if (d) {
        d.value = this.docValue === undefined ? null : this.docValue;
        d.line = this.docStart >= 0 ? this.source.lineAt(this.off(this.docStart)) : 0;
      }
    }
  }
}

export function construct(
  source: SourceText,
  events: Event[],
  text: string,
  base: number,
  firstIndex: number,
  diagnostics: Diagnostic[],
  budget: { yaml11: number },
  remap?: (offset: number) => number,
  pos?: PosWriter,
): YamlDocument[] {
  const b = new Builder(source, text, base, firstIndex, diagnostics, budget, remap, pos);
  for (const ev of events) {
    switch (ev.type) {
      case EVENT_ID.DOCUMENT:
        b.document();
        break;
      case EVENT_ID.MAPPING:
      case EVENT_ID.SEQUENCE:
        b.collection(ev);
        break;
      case EVENT_ID.SCALAR:
        b.scalar(ev);
        break;
      case EVENT_ID.ALIAS:
        b.alias(ev);
        break;
      case EVENT_ID.POP:
        b.pop();
        break;
    }
  }
  // A writer given by the caller is shared with other calls and finished by it.
  if (!pos) b.pos.finish();
  return b.docs;
}
