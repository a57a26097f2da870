/**
 * The built site's Content-Security-Policy (issue 16), written into
 * index.html as a meta tag at build time (the dev server's React refresh
 * needs inline scripts, so it has none). GitHub Pages cannot send headers: the
 * meta tag works wherever the site is served.
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
