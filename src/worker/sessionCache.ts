/**
 * The worker's recent analysis sessions, by editor text. Typing an edit and
 * undoing it, or applying and reverting a what-if edit, sends a text the
 * worker has just analysed: its session (model, indexes, flows, the
 * validation once asked) is reused instead of recomputed. Only the newest
 * few texts are kept, and only texts small enough that keeping a second
 * model costs little memory.
 */
export interface SessionCacheOptions<S = unknown> {
  /** Sessions kept, newest first (the current one included). */
  size?: number;
  /** Texts longer than this are analysed but not kept beyond the current one. */
  maxChars?: number;
  /** Whether a kept session may still answer (else its text is analysed again); every one by default. */
  fresh?: (session: S) => boolean;
}

export interface SessionCache<S> {
  /** The session for this text (and variant: the cluster profile), opened when it is not among the recent ones. */
  open(text: string, file: string, variant?: string): S;
  /** The session of the text asked for last. */
  readonly current: S | undefined;
}

export function createSessionCache<S>(
  openSession: (text: string, file: string, variant: string) => S,
  { size = 2, maxChars = 2_000_000, fresh }: SessionCacheOptions<S> = {},
): SessionCache<S> {
  let recent: { text: string; file: string; variant: string; session: S }[] = [];
  return {
    open(text, file, variant = "") {
      if (fresh) recent = recent.filter((e) => fresh(e.session));
      const i = recent.findIndex((e) => e.text === text && e.file === file && e.variant === variant);
      const entry = i >= 0 ? recent[i]! : { text, file, variant, session: openSession(text, file, variant) };
      const kept = recent.filter((e, j) => j !== i && e.text.length <= maxChars);
      recent = [entry, ...kept].slice(0, size);
      return entry.session;
    },
    get current() {
      return recent[0]?.session;
    },
  };
}
