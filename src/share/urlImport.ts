/**
 * `#url=https://...`: open a scenario from a URL (a raw file, a gist's raw
 * link). The only request that ever leaves the browser, so it is made only
 * after the user says yes; errors say what went wrong in words (the server
 * does not allow cross-origin reads, it answered an error, the file is too
 * large) and what to do instead.
 */

/** Larger scenarios are downloaded and opened as a file instead. */
export const MAX_URL_IMPORT_BYTES = 10 * 1024 * 1024;
const TIMEOUT_MS = 20_000;

/** The `url=` parameter of a hash such as `#url=https%3A%2F%2F...` (or unencoded), or undefined. */
export function urlFromHash(hash: string): string | undefined {
  const h = hash.replace(/^#/, "");
  const i = h.indexOf("url=");
  if (i !== 0 && h[i - 1] !== "&") return undefined;
  if (i < 0) return undefined;
  const raw = h.slice(i + 4);
  let v: string;
  try {
    v = decodeURIComponent(raw);
  } catch {
    v = raw;
  }
  return v || undefined;
}

/** The hash without its `url=` parameter (it is the last parameter: a URL may itself contain `&`). */
export function hashWithoutUrl(hash: string): string {
  const h = hash.replace(/^#/, "");
  const i = h.indexOf("url=");
  if (i < 0 || (i !== 0 && h[i - 1] !== "&")) return hash;
  const rest = h.slice(0, Math.max(0, i - 1));
  return rest ? `#${rest}` : "";
}

/** Checks the address before asking: only http(s), never credentials in it. */
export function checkImportUrl(text: string): { ok: true; url: URL } | { ok: false; error: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: `"${text.slice(0, 200)}" is not a URL.` };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    return { ok: false, error: `Only http and https addresses can be opened, not ${url.protocol}` };
  if (url.username || url.password)
    return {
      ok: false,
      error: "The address carries a user name or password: open the file by download instead.",
    };
  return { ok: true, url };
}

export type ImportResult = { ok: true; text: string; name: string } | { ok: false; error: string };

/** The file's name for the scenario menu and exports: the last path segment. */
export function nameOfUrl(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).at(-1);
  return last ? decodeURIComponent(last) : url.host;
}

export interface FetchOptions {
  /** The whole import (answer and body) must finish within this; a server that trickles the body is stopped. */
  timeoutMs?: number;
  /** The user's Cancel: stops the import at any moment. */
  signal?: AbortSignal;
}

type Stop = "timeout" | "cancel";

/**
 * Fetches the file, reading at most MAX_URL_IMPORT_BYTES within the time limit. `fetcher` is the browser's
 * fetch (a test passes its own). Every wait (the answer, each chunk of the body) races the deadline and the
 * user's Cancel, so a server that answers and then sends a byte a minute, or a fetcher that ignores its signal,
 * cannot hold the import open.
 */
export async function fetchScenario(
  url: URL,
  fetcher: typeof fetch,
  maxBytes = MAX_URL_IMPORT_BYTES,
  options: FetchOptions = {},
): Promise<ImportResult> {
  const timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
  const ctl = new AbortController();
  let stop: Stop | undefined;
  let onStop: (s: Stop) => void = () => {};
  const stopped = new Promise<Stop>((r) => (onStop = r));
  const halt = (why: Stop) => {
    if (stop) return;
    stop = why;
    onStop(why);
    ctl.abort();
  };
  const timer = setTimeout(() => halt("timeout"), timeoutMs);
  const cancelled = () => halt("cancel");
  if (options.signal?.aborted) cancelled();
  options.signal?.addEventListener("abort", cancelled);
  const within = <T>(p: Promise<T>): Promise<T | Stop> => Promise.race([p, stopped]);
  let received = 0;
  const stoppedError = (why: Stop): ImportResult => ({
    ok: false,
    error:
      why === "cancel"
        ? "opening was cancelled."
        : `${url.host} did not send the whole file within ${timeoutMs / 1000} s${received ? ` (${received} bytes arrived)` : ""}, so it was stopped. Download the file and open it with Open file.`,
  });
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    let res: Response | Stop;
    try {
      // No cookies or credentials go with it: the request says nothing about the user.
      res = await within(
        fetcher(url.href, {
          credentials: "omit",
          redirect: "follow",
          signal: ctl.signal,
          referrerPolicy: "no-referrer",
        }),
      );
    } catch {
      if (stop) return stoppedError(stop);
      return {
        ok: false,
        error: `${url.host} could not be read from this page: either it cannot be reached, or it does not allow other sites to read its files (no CORS header). Raw file hosts such as raw.githubusercontent.com and gist.githubusercontent.com allow it; otherwise download the file and open it with Open file.`,
      };
    }
    if (typeof res === "string") return stoppedError(res);
    if (!res.ok)
      return {
        ok: false,
        error: `${url.host} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""} for ${url.pathname}.`,
      };
    const declared = Number(res.headers.get("content-length") ?? NaN);
    if (declared > maxBytes)
      return {
        ok: false,
        error: `The file is ${(declared / 1048576).toFixed(1)} MB; scenarios up to ${maxBytes / 1048576} MB open from a URL. Download it and open it with Open file.`,
      };
    reader = res.body?.getReader();
    const chunks: Uint8Array[] = [];
    if (!reader) {
      const whole = await within(res.arrayBuffer());
      if (typeof whole === "string") return stoppedError(whole);
      received = whole.byteLength;
      chunks.push(new Uint8Array(whole));
    }
    while (reader) {
      let step: ReadableStreamReadResult<Uint8Array> | Stop;
      try {
        step = await within(reader.read());
      } catch {
        if (stop) return stoppedError(stop);
        return {
          ok: false,
          error: `The connection to ${url.host} broke while the file was arriving. Try again, or download the file and open it with Open file.`,
        };
      }
      if (typeof step === "string") return stoppedError(step);
      if (step.done) break;
      received += step.value.byteLength;
      if (received > maxBytes)
        return {
          ok: false,
          error: `The file is larger than ${maxBytes / 1048576} MB, the most a URL opens. Download it and open it with Open file.`,
        };
      chunks.push(step.value);
    }
    if (received > maxBytes)
      return {
        ok: false,
        error: `The file is larger than ${maxBytes / 1048576} MB, the most a URL opens. Download it and open it with Open file.`,
      };
    const all = new Uint8Array(received);
    let at = 0;
    for (const c of chunks) {
      all.set(c, at);
      at += c.byteLength;
    }
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(all);
    } catch {
      return { ok: false, error: "The file is not UTF-8 text: is it a YAML or JSON manifest?" };
    }
    return { ok: true, text, name: nameOfUrl(url) };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", cancelled);
    // An unfinished body is let go of (its stream cancelled), whatever ended the import.
    reader?.cancel().catch(() => undefined);
  }
}
