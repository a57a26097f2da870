/**
 * Share links: the whole scenario in the URL hash, so nothing leaves the browser.
 *
 *   #share=<base64url( [version byte] [raw DEFLATE of the UTF-8 JSON of the input] )>
 *
 * Version 1: {text, scenario?}. Version 2 adds `view` (the question, filters,
 * tabs and lesson step: view.ts). Version 3 adds to the view the cluster
 * profile (`cni`) and the question's HTTP request (`question.http`), which
 * change the answer: a reader of version 2 would drop them silently, so they
 * get a new version that such a reader refuses. Version 4 adds to the view
 * the profile's assumptions about the cluster around the application
 * (`assume`: an Istio ingress gateway, sidecar injection), which change the
 * answer too. Version 5 adds `before`: a text the link's text is compared with
 * on opening, its changes marked as a what-if's are (a pull request's base,
 * from the GitHub Action). Links are made in version 5.
 *
 * The byte layout of a published version must never change: old links keep
 * opening forever (the golden links in codec.test.ts pin that). A new format
 * gets a new version byte and a migration from the one before. Decoding is
 * version -> inflate (size-guarded) -> JSON -> migrate -> validate, and every
 * failure is a message, never an exception.
 */
import { deflateSync, Inflate, strFromU8, strToU8 } from "fflate";
import { sanitizeView, type SharedView } from "./view.ts";
import { thousands } from "../engine/trace/format.ts";

export type { SharedView } from "./view.ts";

export const SHARE_PARAM = "share";
export const SHARE_VERSION = 5;

/** What a link carries: the editor text, the catalogue scenario it started from (if any), and the view (version 2 on). */
export interface SharedInput {
  text: string;
  scenario?: string;
  view?: SharedView;
  /** The text `text` is compared with on opening (version 5 on): a pull request's base. */
  before?: string;
}

/** Links longer than this are refused when made: chat tools and some browsers cut them. */
export const MAX_LINK_CHARS = 100_000;
/** Links longer than this are made, but Share says they are long and offers the file instead (some chat tools cut at 8 KB). */
export const LONG_LINK_CHARS = 8 * 1024;
/** Decompressed JSON larger than this is refused (a zip bomb, or not our link). */
export const MAX_INFLATED_BYTES = 8 * 1024 * 1024;

export type DecodeResult = { ok: true; input: SharedInput; version: number } | { ok: false; error: string };
export type EncodeResult = { ok: true; payload: string } | { ok: false; error: string; size: number };

// ---------- base64url (RFC 4648 §5, no padding) ----------

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;

const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ASCII = new TextDecoder();

/**
 * The characters go into a byte buffer read as one string at the end: appending four at a time built a string of a
 * quarter of a million pieces for a saved text of 1 MB, after every pause in typing at 2,000 pods (about 1 MB of
 * the page's allocations an edit in Chromium's profile of the bench's edits).
 */
export function toBase64Url(bytes: Uint8Array): string {
  const out = new Uint8Array(Math.ceil((bytes.length * 4) / 3));
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    out[o++] = CODES[(n >> 6) & 63]!;
    out[o++] = CODES[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    out[o++] = CODES[n >> 18]!;
    out[o++] = CODES[(n >> 12) & 63]!;
    if (rest === 2) out[o++] = CODES[(n >> 6) & 63]!;
  }
  return ASCII.decode(out.subarray(0, o));
}

/** undefined when the text is not base64url (a character outside the alphabet, or an impossible length). */
export function fromBase64Url(text: string): Uint8Array | undefined {
  if (text.length % 4 === 1) return undefined;
  const out = new Uint8Array(Math.floor((text.length * 3) / 4));
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? LOOKUP[c]! : -1;
    if (v < 0) return undefined;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
  }
  return out.subarray(0, o);
}

// ---------- versions ----------

/** Each entry turns the JSON of its version into the current SharedInput shape (or says why it cannot). */
const MIGRATIONS: Record<number, (value: unknown) => unknown> = {
  // Version 1 has no view: a `view` key in a version 1 link is not ours, and is dropped.
  1: (v) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? { ...(v as Record<string, unknown>), view: undefined }
      : v,
  // Version 2 has no profile and no HTTP request: such keys in a version 2 link are not ours, and are dropped.
  2: (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    const view = o.view;
    if (view === null || typeof view !== "object" || Array.isArray(view)) return o;
    const { cni: _cni, ...rest } = view as Record<string, unknown>;
    const q = rest.question;
    if (q !== null && typeof q === "object" && !Array.isArray(q)) {
      const { http: _http, ...plain } = q as Record<string, unknown>;
      rest.question = plain;
    }
    return { ...o, view: rest };
  },
  // Version 3 has no assumptions: such a key in a version 3 link is not ours, and is dropped.
  3: (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    const view = o.view;
    if (view === null || typeof view !== "object" || Array.isArray(view)) return o;
    const { assume: _assume, ...rest } = view as Record<string, unknown>;
    return { ...o, view: rest };
  },
  // Version 4 has no `before`: such a key in a version 4 link is not ours, and is dropped.
  4: (v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    const { before: _before, ...rest } = v as Record<string, unknown>;
    return rest;
  },
  5: (v) => v,
};

function validate(value: unknown): SharedInput | string {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return "the link does not hold a scenario";
  const v = value as Record<string, unknown>;
  if (typeof v.text !== "string") return "the link's scenario has no text";
  const input: SharedInput = { text: v.text };
  if (v.scenario !== undefined) {
    if (typeof v.scenario !== "string" || v.scenario.length > 200)
      return "the link names its scenario in a way this version does not understand";
    input.scenario = v.scenario;
  }
  const view = sanitizeView(v.view);
  if (view) input.view = view;
  if (v.before !== undefined) {
    if (typeof v.before !== "string") return "the link's text to compare with is not a text";
    input.before = v.before;
  }
  return input;
}

function inflateGuarded(data: Uint8Array, max: number): Uint8Array | string {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let tooLarge = false;
  const inflater = new Inflate((chunk) => {
    total += chunk.length;
    if (total > max) tooLarge = true;
    else chunks.push(chunk);
  });
  try {
    // Small input steps bound what one push can produce (DEFLATE expands at most ~1032:1).
    const step = 1024;
    for (let i = 0; i < data.length && !tooLarge; i += step)
      inflater.push(data.subarray(i, i + step), i + step >= data.length);
  } catch {
    return "the link is damaged (its compressed data does not decode); it may have been cut short when copied";
  }
  if (tooLarge)
    return `the link's scenario is larger than ${Math.round(max / 1024 / 1024)} MB once unpacked, more than the playground opens from a link`;
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

export function encodeShare(input: SharedInput, maxChars = MAX_LINK_CHARS): EncodeResult {
  const body: SharedInput = { text: input.text };
  if (input.scenario !== undefined) body.scenario = input.scenario;
  if (input.view !== undefined) body.view = input.view;
  if (input.before !== undefined) body.before = input.before;
  const json = strToU8(JSON.stringify(body));
  const packed = deflateSync(json, { level: 9 });
  const bytes = new Uint8Array(packed.length + 1);
  bytes[0] = SHARE_VERSION;
  bytes.set(packed, 1);
  const payload = toBase64Url(bytes);
  if (payload.length > maxChars) {
    return {
      ok: false,
      size: payload.length,
      error: `This scenario makes a link of ${thousands(payload.length)} characters, too long to share safely (the limit is ${thousands(maxChars)}). Download it as a file instead.`,
    };
  }
  return { ok: true, payload };
}

export function decodeShare(payload: string, maxChars = MAX_LINK_CHARS * 4): DecodeResult {
  if (payload.length === 0)
    return { ok: false, error: "The link is empty: it has no scenario after #share=." };
  if (payload.length > maxChars)
    return {
      ok: false,
      error: `The link is too large to open (${thousands(payload.length)} characters).`,
    };
  const bytes = fromBase64Url(payload);
  if (!bytes || bytes.length < 2)
    return {
      ok: false,
      error: "The link is damaged: it is not a Kube Traffic Lab share link (bad characters or cut short).",
    };
  const version = bytes[0]!;
  const migrate = MIGRATIONS[version];
  if (!migrate) {
    return {
      ok: false,
      error:
        version > SHARE_VERSION
          ? `The link was made by a newer version of the playground (format ${version}); this one reads formats up to ${SHARE_VERSION}.`
          : `The link is damaged: format ${version} is unknown.`,
    };
  }
  const inflated = inflateGuarded(bytes.subarray(1), MAX_INFLATED_BYTES);
  if (typeof inflated === "string") return { ok: false, error: `The link cannot be opened: ${inflated}.` };
  let value: unknown;
  try {
    value = JSON.parse(strFromU8(inflated));
  } catch {
    return { ok: false, error: "The link is damaged: its content is not readable." };
  }
  const input = validate(migrate(value));
  if (typeof input === "string") return { ok: false, error: `The link cannot be opened: ${input}.` };
  return { ok: true, input, version };
}

/** The share payload in a URL hash such as `#share=...`, or undefined when the hash holds none. */
export function payloadFromHash(hash: string): string | undefined {
  const h = hash.startsWith("#") ? hash.slice(1) : hash;
  for (const part of h.split("&")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq) === SHARE_PARAM) return part.slice(eq + 1);
  }
  return undefined;
}

export function hashFor(payload: string): string {
  return `#${SHARE_PARAM}=${payload}`;
}
