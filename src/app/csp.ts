/**
 * The built site's Content-Security-Policy (issue 16), written into
 * index.html as a meta tag at build time (the dev server's React refresh
 * needs inline scripts, so it has none). GitHub Pages cannot send headers: the
 * meta tag works wherever the site is served.
 *
 * One directive cannot live in a meta tag: `frame-ancestors` (CSP3 ignores it
 * there). Hosts that read a `_headers` file (Netlify, Cloudflare Pages) get
 * the whole policy plus `frame-ancestors 'none'` as a header from
 * `SITE_HEADERS`, written into the build, and `vite preview` sends the same.
 * On a host without headers (GitHub Pages) another site can frame the
 * playground, but the frame's storage is partitioned by the top-level site:
 * it sees none of the user's saved work.
 *
 * - Scripts and workers from the site only: no inline script (the theme
 *   script is the file `theme.js`), no eval. The engine, layout, what-if and
 *   Monaco's editor and YAML workers are files of the build.
 * - Styles may be inline: React Flow positions nodes and Monaco sizes its
 *   views with style attributes and injected style elements.
 * - connect-src stays open to http(s): the `#url=` import reads a scenario
 *   from any server the user agrees to (it asks first).
 * - Images from data: and blob: URLs: the PNG export draws the SVG through one.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' https: http: data: blob:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
].join("; ");

/** The policy as a response header: the meta tag's directives plus the one a meta tag cannot carry. */
export const HEADER_CONTENT_SECURITY_POLICY = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;

/** Response headers for every path of the built site (`_headers`, and `vite preview`). */
export const SITE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": HEADER_CONTENT_SECURITY_POLICY,
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};

/** The `_headers` file of Netlify and Cloudflare Pages: one rule for every path. */
export function headersFile(): string {
  return ["/*", ...Object.entries(SITE_HEADERS).map(([k, v]) => `  ${k}: ${v}`), ""].join("\n");
}
